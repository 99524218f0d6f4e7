"""One module per game; importing this package registers them all."""
