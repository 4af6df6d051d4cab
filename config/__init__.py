"""Configuration: settings from the environment and `.env`, behaviour from `config/*.yaml`.

Every layer may import this package; it imports only libraries.
"""
