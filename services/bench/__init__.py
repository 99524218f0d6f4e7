"""The benches behind ``cardtable bench``: the bots against a double-dummy solver (:mod:`.bots`), a gRPC server under
load (:mod:`.grpc`), simulation jobs on Ray (:mod:`.simulate`); the replay codec's and the environments' benches
stay beside what they measure (``replay/bench.py``, ``envs/bench.py``)."""
