"""Collection for the whole tree: the suite in tests/ and, through --doctest-modules, every module's examples."""

collect_ignore = ["services/generated"]  # protoc output, built by services/protogen.py: no examples of ours
