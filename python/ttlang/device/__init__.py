"""Machine-readable device descriptions (one TOML file per device; see description.py)."""

from ttlang.device.description import (
    DEFAULT_DEVICE,
    FIDELITY_PHASES,
    DeviceDescription,
    DeviceDescriptionError,
    available_devices,
    load_description,
    load_device,
)

__all__ = [
    "DEFAULT_DEVICE",
    "FIDELITY_PHASES",
    "DeviceDescription",
    "DeviceDescriptionError",
    "available_devices",
    "load_description",
    "load_device",
]
