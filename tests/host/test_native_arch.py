"""The app's .mpy files carry native code (the viper scan loops), so each is built for one CPU."""

from doce_host import image, micropython


def arches(files):
    return {micropython.mpy_header(data)[2] for name, data in files.items() if name.startswith(image.SLOT + "doce/")}


def test_the_image_carries_native_code_for_the_chips_cpu():
    for chip in ("esp32", "esp32s3", "esp32c3"):
        found = arches(image.app_files("standard", chip=chip)) - {0}  # 0: a module with no native code
        assert found == {micropython.NATIVE_ARCH[chip]}, chip


def test_a_running_boards_arch_is_read_from_its_mpy_value():
    # sys.implementation._mpy: version 6 in the low byte, then the features byte (minor 3, arch << 2)
    for march, arch in (("xtensawin", 10), ("rv32imc", 11), ("x64", 2)):
        assert micropython.march_of_mpy(6 | (3 | arch << 2) << 8) == march
    assert micropython.march_of_mpy(6) is None  # a build without native code
