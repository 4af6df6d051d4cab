"""The `energy-advisor` command line."""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import httpx

from bot.doctor import Status, check_ollama, render, run_doctor
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
    commands.add_parser(
        "slack", help="run the Slack bot (Socket Mode; needs SLACK_BOT_TOKEN and SLACK_APP_TOKEN)"
    )
    commands.add_parser("ingest", help="load knowledge/docs into the knowledge base (only what changed)")
    samples = commands.add_parser("samples", help="run the evaluation scenarios and write the sample traces")
    samples.add_argument(
        "--out", type=Path, default=None, help="folder for the traces (default: traces/samples)"
    )
    evaluate = commands.add_parser(
        "eval", help="grade trace files or folders (same as python -m traces.evaluate)"
    )
    evaluate.add_argument(
        "args", nargs=argparse.REMAINDER, help="PATH... [--format text|markdown|json|junit] [--config FILE]"
    )
    chat = commands.add_parser("chat", help="talk to the advisor in this terminal")
    chat.add_argument("--user", help="profile id to talk as (default: local-<your login name>)")
    chat.add_argument(
        "--new-session", action="store_true", help="start a new conversation instead of resuming"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    if args.command == "eval":
        from traces.evaluate import main as evaluate_main

        return evaluate_main(args.args)
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    # In the terminal chat, INFO lines would interleave with the conversation: unless LOG_LEVEL
    # was set explicitly, show only warnings there.
    interactive = args.command in ("chat", "run") and "log_level" not in settings.model_fields_set
    configure_logging(
        "WARNING" if interactive else settings.log_level,
        secrets=(
            settings.slack_bot_token,
            settings.slack_app_token,
            settings.nrel_api_key,
            settings.openei_api_key,
        ),
    )
    if args.command == "doctor":
        return doctor(settings)
    if args.command == "ingest":
        return ingest_command(settings)
    if args.command == "slack":
        return slack(settings)
    if args.command == "samples":
        from bot.samples import SAMPLES_DIR, generate

        for name, path in generate(args.out or SAMPLES_DIR).items():
            print(f"{name}: {path}")
        return EXIT_OK
    if args.command == "chat":
        return chat(settings, user=args.user, new_session=args.new_session)
    return run(settings)


def doctor(settings: Settings) -> int:
    with httpx.Client() as http:
        report = run_doctor(settings, http=http)
    print(render(report))
    return EXIT_FAILED if report.failed else EXIT_OK


def run(settings: Settings) -> int:
    """What `make run` starts: the Slack bot when both tokens are set, otherwise the terminal chat."""
    if settings.slack_configured:
        return slack(settings)
    else:
        print(
            "No Slack tokens (SLACK_BOT_TOKEN, SLACK_APP_TOKEN): starting the terminal chat. See .env.example."
        )
    return chat(settings, user=None, new_session=False)


def slack(settings: Settings) -> int:
    """Run the Slack bot; a clear message (not a traceback) when the tokens are missing or wrong."""
    from slack_sdk.errors import SlackApiError

    from bot.slack_runner import build_slack_bot, run_until_signalled

    if not settings.slack_configured:
        print(
            "SLACK_BOT_TOKEN and SLACK_APP_TOKEN must both be set (see .env.example); try `energy-advisor chat`.",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    runtime, status = _start_runtime(settings)
    if runtime is None:
        return status
    try:
        try:
            bot = build_slack_bot(runtime)
        except SlackApiError as exc:
            print(
                f"Slack rejected the bot token ({exc.response.get('error')}); check SLACK_BOT_TOKEN.",
                file=sys.stderr,
            )
            return EXIT_FAILED
        run_until_signalled(bot)
        return EXIT_OK
    finally:
        runtime.close()


def chat(settings: Settings, *, user: str | None, new_session: bool) -> int:
    from bot.chat import run_chat, terminal_user_id
    from profiles.ids import InvalidIdError, validate_label

    user_id = user or terminal_user_id(getpass.getuser())
    try:
        validate_label(user_id)
    except InvalidIdError as exc:
        print(f"--user: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    runtime, status = _start_runtime(settings)
    if runtime is None:
        return status
    try:
        if runtime.models.offline:
            print(
                "OFFLINE MODE: answers are assembled from templates and calculations, without a language model."
            )
        from bot.scheduler import MemorizeScheduler

        # Catch up: the user's earlier conversations with un-memorized turns get their idle job.
        scheduler = MemorizeScheduler(
            service=runtime.service, idle_minutes=runtime.config.agents.memorizer.idle_minutes
        )
        runtime.service.on_turn = scheduler.on_turn
        scheduler.start(user_id=user_id)
        try:
            return run_chat(
                runtime.service,
                user_id=user_id,
                new_session=new_session,
                staleness_days=runtime.config.eval.staleness_days,
            )
        finally:
            scheduler.shutdown(wait=True)
    finally:
        runtime.close()


def _start_runtime(settings: Settings):
    """Build the app (ingesting the knowledge base first) and say what start-up noticed; on a
    problem, print one clear message and return (None, exit code)."""
    from bot.wiring import build_runtime
    from knowledge.store import KnowledgeBaseLockedError

    try:
        runtime = build_runtime(settings, progress=print)
    except ConfigError as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        return None, EXIT_CONFIG
    except KnowledgeBaseLockedError as exc:
        print(str(exc), file=sys.stderr)
        return None, EXIT_FAILED
    for notice in runtime.notices:
        print(f"Note: {notice}")
    return runtime, EXIT_OK


def ingest_command(settings: Settings) -> int:
    from bot.wiring import open_knowledge_base
    from config.files import load_app_config
    from knowledge.store import KnowledgeBaseLockedError

    try:
        config = load_app_config(settings.config_dir)
        with httpx.Client() as http:
            usable = check_ollama(settings, config, http).status is Status.OK
        store, retriever, report = open_knowledge_base(settings, config, usable_ollama=usable, progress=print)
    except ConfigError as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except KnowledgeBaseLockedError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_FAILED
    store.close()
    print(report.summary())
    print(f"Retrieval: {retriever.mode}.")
    return EXIT_OK


def _version() -> str:
    try:
        return metadata.version("home-energy-advisor")
    except metadata.PackageNotFoundError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
