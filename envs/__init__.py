"""cardtable's games for the tools game-AI people use: PettingZoo environments (:mod:`envs.pettingzoo`, extra
``[pettingzoo]``), vector environments of N matches with batched numpy arrays (:mod:`envs.vector`, Gymnasium's
vector API, the same extra) and OpenSpiel games (:mod:`envs.openspiel`, extra ``[openspiel]``), over one numeric
encoding of actions and observations (:mod:`envs.encoding`). The engine itself stays free of third-party imports."""
