"""What sits in and beside a save: the journal, its sidecar, summary and history, the app's data paths and settings (no Kivy)."""
