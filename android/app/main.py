"""Android entry point: python-for-android runs main.py at the root of the packaged app.

buildozer.spec packages this folder (source.dir = android/app); companion/, protocol/,
firmware/ and hardware/ here are symlinks to the real packages, copied in by buildozer.
"""
import os

# Saved games live in the app's private storage (p4a sets ANDROID_PRIVATE = getFilesDir()),
# which Android keeps across updates and removes with the app.
_private = os.environ.get("ANDROID_PRIVATE")
if _private:
    os.environ.setdefault("TABLETOP_COMPANION_DATA", os.path.join(_private, "tabletop-companion"))

from companion.app import main  # noqa: E402

if __name__ == "__main__":
    main([])
