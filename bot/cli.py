"""The `energy-advisor` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import metadata

import httpx

from bot.doctor import render, run_doctor
from config.errors import ConfigError
from config.logging_setup import configure_logging
from config.settings import Settings, load_settings

EXIT_OK, EXIT_FAILED, EXIT_CONFIG = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="energy-advisor",
        description="Home Energy Advisor: an AI energy advisor for Slack (EV charging, solar, tariffs, heat pumps).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser(
        "doctor",
        help="check settings, data directory, Ollama and Slack, and say how to fix what is missing",
    )
    commands.add_parser(
        "run",
        help="start the advisor (Slack when tokens are set, otherwise the terminal); checks the setup first",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    configure_logging(
        settings.log_level,
        secrets=(
            settings.slack_bot_token,
            settings.slack_app_token,
            settings.nrel_api_key,
            settings.openei_api_key,
        ),
    )
    if args.command == "doctor":
        return doctor(settings)
    return run(settings)


def doctor(settings: Settings) -> int:
    with httpx.Client() as http:
        report = run_doctor(settings, http=http)
    print(render(report))
    return EXIT_FAILED if report.failed else EXIT_OK


def run(settings: Settings) -> int:
    status = doctor(settings)
    if status != EXIT_OK:
        return status
    print(
        "\nThis version has the foundation only (configuration, profiles, sessions, storage): "
        "the advisor chat is not built yet, so there is nothing to start beyond this check."
    )
    return EXIT_OK


def _version() -> str:
    try:
        return metadata.version("home-energy-advisor")
    except metadata.PackageNotFoundError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
