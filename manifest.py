# Freezes the board firmware into a MicroPython image, for makers who build MicroPython:
#   make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/this/manifest.py
#   idf.py -C ports/esp32 -D MICROPY_BOARD=ESP32_GENERIC -D MICROPY_FROZEN_MANIFEST=... build
# Frozen modules run from flash: the heap keeps only the board's data (benchmarks/bench_firmware.py).
# The profile, the sensor map and /main.py still go on the filesystem:
#   mpremote cp firmware/profiles/pico.json :profile.json + cp hardware/sensor_map.json :sensor_map.json
#   + cp firmware/boot/main.py :main.py
# The module lists are the ones companion/cli/firmware_package.py deploys (a test keeps them equal).
include("$(PORT_DIR)/boards/manifest.py")
package("firmware", files=("__init__.py", "board.py", "calib.py", "dice.py", "hc165.py", "hc595.py",
                           "main.py", "selftest.py", "sensormap.py", "tcs34725.py", "tracks.py", "transport.py"))
package("protocol", files=("__init__.py", "cobs.py", "link.py", "wire.py"))
