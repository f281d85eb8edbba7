"""A room of boards on one MQTT broker: `doce fleet` (docs/room.md)."""
