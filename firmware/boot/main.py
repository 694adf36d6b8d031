import firmware.main
firmware.main.run()
