"""ttlang: a tile DSL compiler for Tenstorrent Tensix cores."""
