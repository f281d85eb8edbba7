"""A room of boards on one MQTT broker: `doce fleet` (see README, "A room of boards")."""
