"""Kivy companion app: screens (Python) and layouts (.kv). No rules logic lives here.

Everything the screens know about a game comes from `controller.GameController`, which talks to
the engine (`companion.engine`, `companion.games`) and the journal (`companion.store.journal`).
Importing this package does not import Kivy; `companion.gui.screens` does.
"""
