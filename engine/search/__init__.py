"""Search over perfect-information positions: the trick games' double-dummy solver (:mod:`.double_dummy`)."""
