"""Reading a MicroPython firmware .bin: the ESP-IDF partition table, the chip, the version,
and where the firmware puts its file system on a module of a given flash size."""

import hashlib
import struct

import pytest

import esp_images
from doce_host import espimage
from doce_host.espimage import FirmwareError, UnknownLayout

MIB = 1 << 20


def test_one_entry_is_read_field_by_field():
    # ESP-IDF api-guides/partition-tables: magic AA 50, type, subtype, offset, size (LE), label[16], flags
    entry = bytes.fromhex("aa50 01 02 00900000 00600000") + b"nvs".ljust(16, b"\0") + bytes(4)
    table = entry + b"\xeb\xeb" + b"\xff" * 14 + hashlib.md5(entry).digest() + b"\xff" * 64
    assert espimage.parse_partition_table(table) == [espimage.Partition("nvs", 1, 2, 0x9000, 0x6000)]


def test_the_releases_table_reads_back():
    table = esp_images.partition_table(esp_images.V1_28_TABLE)
    assert [tuple(p) for p in espimage.parse_partition_table(table)] == esp_images.V1_28_TABLE


def test_a_table_without_md5_entry_reads():
    table = esp_images.partition_table(esp_images.V1_28_OTA_8MIB_TABLE, md5=False)
    assert [p.name for p in espimage.parse_partition_table(table)] == ["nvs", "otadata", "phy_init", "ota_0",
                                                                      "ota_1"]


def test_no_table_is_none():
    assert espimage.parse_partition_table(b"\xff" * 0xC00) is None
    assert espimage.parse_partition_table(bytes(0xC00)) is None


def damage(table, at, byte):
    return table[:at] + bytes([byte]) + table[at + 1:]


@pytest.mark.parametrize("make, message", [
    (lambda t: damage(t, 40, 0x77), "MD5 does not match"),  # a changed offset
    (lambda t: damage(t, 3 * 32, 0x00), "bad entry at byte 96"),  # the MD5 entry's magic broken
    (lambda t: t[:70], "cut short"),
    (lambda t: (t[:32] * 100)[:0xC00], "has no end"),
])
def test_a_damaged_table_is_an_error(make, message):
    with pytest.raises(FirmwareError, match=message):
        espimage.parse_partition_table(make(esp_images.partition_table(esp_images.V1_28_TABLE)))


def test_overlapping_partitions_are_an_error():
    rows = esp_images.V1_28_TABLE + [("vfs", 1, 0x81, 0x100000, 0x200000)]
    with pytest.raises(FirmwareError, match="vfs overlaps factory"):
        espimage.parse_partition_table(esp_images.partition_table(rows))


@pytest.mark.parametrize("chip, table_at", [("esp32", 0x7000), ("esp32s2", 0x7000), ("esp32s3", 0x8000),
                                            ("esp32c3", 0x8000)])
def test_the_chip_and_version_come_from_the_image(chip, table_at):
    data = esp_images.firmware(chip)
    assert data[table_at:table_at + 2] == b"\xaa\x50"  # where makeimg.py put the table in the file
    fw = espimage.read_firmware(data)
    assert (fw.chip, fw.version, fw.release, fw.date) == (chip, "v1.28.0", (1, 28, 0), "2026-04-06")
    assert fw.base == 0x8000 - table_at and fw.app_offset == 0x10000


@pytest.mark.parametrize("machine, board", [(None, "Generic ESP32 module with SPIRAM"),
                                            (esp_images.PLAIN_ESP32, "Generic ESP32 module"), ("", None)])
def test_the_board_an_image_is_built_for_comes_from_its_banner(machine, board):
    assert espimage.read_firmware(esp_images.firmware(machine=machine)).machine == board


def test_a_changed_byte_in_the_app_fails_its_checksum():
    data = bytearray(esp_images.firmware())
    data[0xF000 + 600] ^= 0x01  # inside the app's segment (the app is at file offset 0x10000 - 0x1000)
    with pytest.raises(FirmwareError, match="damaged"):
        espimage.read_firmware(bytes(data))


def test_an_unknown_chip_is_an_error():
    data = bytearray(esp_images.firmware())
    struct.pack_into("<H", data, 12, 0x7777)
    with pytest.raises(FirmwareError, match="chip id 30583"):
        espimage.read_firmware(bytes(data))


@pytest.mark.parametrize("flash_mib, size", [(4, 0x200000), (8, 0x600000), (16, 0xE00000), (32, 0x1E00000)])
def test_from_v1_26_vfs_runs_from_the_last_partition_to_the_end_of_flash(flash_mib, size):
    fw = espimage.read_firmware(esp_images.firmware())
    assert espimage.vfs_place(fw, flash_mib * MIB) == (0x200000, size)


def test_before_v1_26_a_table_without_vfs_is_unknown():
    fw = espimage.read_firmware(esp_images.firmware(version="v1.25.0"))
    with pytest.raises(UnknownLayout, match="no 'vfs' partition"):
        espimage.vfs_place(fw, 8 * MIB)


def test_an_unknown_flash_size_is_an_unknown_layout():
    fw = espimage.read_firmware(esp_images.firmware())
    with pytest.raises(UnknownLayout, match="flash size is not known"):
        espimage.vfs_place(fw, None)


def test_a_module_with_no_room_after_the_firmware_is_an_error():
    fw = espimage.read_firmware(esp_images.firmware())
    with pytest.raises(FirmwareError, match="no room for files"):
        espimage.vfs_place(fw, 2 * MIB)
