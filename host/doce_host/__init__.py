"""Host tools for the DOCE board: the `doce` command."""
