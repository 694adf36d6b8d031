"""Every way a board reaches the app: the serial link, the fault-injecting link, the virtual board, Android USB serial and the board port the screens use (no Kivy)."""
