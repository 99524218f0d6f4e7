"""The ``cardtable`` command line: ``games``, ``play``, ``watch``, ``bench`` (see ``services.cli.main``)."""
