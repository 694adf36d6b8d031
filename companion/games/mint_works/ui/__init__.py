"""Mint Works' Kivy views (imported by the app only; they import nothing of the shell but the kit)."""
