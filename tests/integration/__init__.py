"""Tests for the Home Assistant integration (run in the HA venv with PHCC)."""
