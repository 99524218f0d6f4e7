"""The benches behind ``cardtable bench``, all in this package: the engine's rollouts and clones (:mod:`.engine`), the
bots against double-dummy solvers (:mod:`.bots`, :mod:`.colver_dd`), a gRPC server under load (:mod:`.grpc`),
simulation jobs on Ray (:mod:`.simulate`), replay sizes and the store (:mod:`.replays`) and the RL environments
(:mod:`.envs`)."""
