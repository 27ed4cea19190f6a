"""Analyses of D2M IR that several passes query (they never rewrite IR)."""
