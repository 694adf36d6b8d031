"""Command-line tools: the board tool and the firmware package (no Kivy)."""
