"""cardtable's front doors: the ``cardtable`` command line (``services.cli``) and, later, the gRPC services.

Services translate and orchestrate; the rules live in ``engine/``.
"""
