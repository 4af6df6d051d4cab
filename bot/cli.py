"""The `energy-advisor` command line."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import itertools
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from importlib import metadata
from pathlib import Path

import httpx

from bot.doctor import Status, check_ollama, render, run_doctor
from config.errors import ConfigError
from config.logging_setup import configure_logging
from config.settings import Settings, load_settings

EXIT_OK, EXIT_FAILED, EXIT_CONFIG = 0, 1, 2
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141  # what a shell reports after SIGINT / SIGPIPE

# Libraries that log start-up chatter at INFO ("faiss.loader: Could not load library with AVX512
# support ... ModuleNotFoundError", "MilvusLite server started for ...", "Scheduler started"): in the
# terminal chat, `ingest` and `samples` output that reads like an error. Their warnings still show.
QUIET_LIBRARY_LOGGERS = ("faiss", "milvus_lite", "pymilvus", "EndpointResolver", "apscheduler")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="energy-advisor",
        description="Home Energy Advisor: an AI energy advisor for Slack (EV charging, solar, tariffs, heat pumps).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, summary: str, details: str) -> argparse.ArgumentParser:
        """A subcommand: `summary` in the list of commands, summary and details in its own --help."""
        return commands.add_parser(
            name, help=summary, description=f"{summary[0].upper()}{summary[1:]}. {details}"
        )

    command(
        "doctor",
        "check settings, data directory, Ollama and Slack, and say how to fix what is missing",
        "Reads the environment and .env; secrets are only reported as set or not set. "
        "Exit code 1 when something must be fixed before the advisor can start, 2 for an invalid setting.",
    )
    command(
        "run",
        "start the advisor (Slack when tokens are set, otherwise the terminal)",
        "This is what `make run` starts. The knowledge base is brought up to date first, and anything "
        "missing (Ollama, Slack tokens, API keys) is named with how to fix it.",
    )
    command(
        "slack",
        "run the Slack bot (Socket Mode; needs SLACK_BOT_TOKEN and SLACK_APP_TOKEN)",
        "Runs until Ctrl-C or SIGTERM; answers already running are finished first. "
        "See the README section 'Install in your Slack workspace'.",
    )
    command(
        "ingest",
        "load knowledge/docs into the knowledge base (only what changed)",
        "The knowledge base is a Milvus Lite file in DATA_DIR, or ENERGY_ADVISOR_MILVUS_URI. "
        "Other commands ingest at start-up too; this one only ingests and reports.",
    )
    samples = command(
        "samples",
        "run the evaluation scenarios and write the sample traces",
        "Offline, at the demo date of spec 000. Without --out the traces go to a new folder under "
        "DATA_DIR/samples (the command prints where); `--out traces/samples` refreshes the tracked samples.",
    )
    samples.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for the traces (default: a new folder in DATA_DIR/samples)",
    )
    evaluate = command(
        "eval",
        "grade trace files or folders (same as python -m traces.evaluate)",
        "Exit code 0 when everything passes (warnings allowed), 1 when a grader fails, "
        "2 when a file is not a readable trace.",
    )
    evaluate.add_argument(
        "args",
        nargs=argparse.REMAINDER,
        metavar="PATH...",
        help="trace files or folders, then [--format text|markdown|json|junit] [--config FILE] [--otlp-endpoint URL]",
    )
    chat = command(
        "chat",
        "talk to the advisor in this terminal",
        "The same conversation service as Slack; type /help in the chat for its commands, /quit or Ctrl-D to leave.",
    )
    chat.add_argument("--user", help="profile id to talk as (default: local-<your login name>)")
    chat.add_argument(
        "--new-session", action="store_true", help="start a new conversation instead of resuming"
    )
    replay = command(
        "replay",
        "re-run recorded conversations through the current graph and compare",
        "SUITE is a folder of cases (traces/replay-suite is the shipped one) or one case folder, "
        "e.g. a thumbs-down case from DATA_DIR/feedback/cases. The model's recorded answers, the "
        "tools' recorded results, the recorded passages and the recorded clock are served back; "
        "exit code 1 when the graph asks for something new, a verdict gets worse or an expectation "
        "fails, 2 when a case cannot be read.",
    )
    replay.add_argument("suite", type=Path, metavar="SUITE", help="suite or case folder")
    replay.add_argument(
        "--strict-answers", action="store_true", help="fail when an answer's text changed at all"
    )
    replay.add_argument("--quiet", action="store_true", help="no diffs of changed answers")
    for name in ("run", "slack", "chat"):  # the commands that answer turns
        commands.choices[name].add_argument(
            "--otlp-endpoint",
            metavar="URL",
            help="also send each trace to this OpenTelemetry OTLP/HTTP endpoint, e.g. http://localhost:4318 "
            "(instead of OTEL_EXPORTER_OTLP_ENDPOINT)",
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (`energy-advisor eval ... | head`): stop quietly, as other tools do.
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    quiet_library_loggers()
    parser = build_parser()
    # `eval` hands its own options to traces.evaluate, before or after the paths
    # (`eval --format json traces/` and `eval traces/ --format json` alike).
    args, unknown = parser.parse_known_args(argv)
    if unknown and args.command != "eval":
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    if args.command == "eval":
        if not args.args and not unknown:
            _subcommand(parser, "eval").error(
                "give at least one trace file or folder, e.g. `energy-advisor eval traces/samples`"
            )
        from traces.evaluate import main as evaluate_main

        return evaluate_main([*unknown, *args.args], prog="energy-advisor eval")
    try:
        endpoint = getattr(args, "otlp_endpoint", None)
        settings = load_settings(**({"otel_exporter_otlp_endpoint": endpoint} if endpoint else {}))
    except ConfigError as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    if settings.milvus_uri_notice is not None and args.command != "doctor":  # doctor lists it itself
        print(f"Note: {settings.milvus_uri_notice}", file=sys.stderr)
    # In the terminal chat, log lines would interleave with the conversation (the answers already
    # say when a data API could not be reached): unless LOG_LEVEL was set explicitly, show only
    # errors there, and only warnings for the Slack bot's console.
    # A replay's report says what went wrong (a divergence fails the turn, which the service logs
    # with a traceback); the replayed turns' own log lines would bury it.
    chatting = args.command in ("chat", "replay") or (args.command == "run" and not settings.slack_configured)
    interactive = args.command in ("chat", "run", "replay") and "log_level" not in settings.model_fields_set
    configure_logging(
        ("CRITICAL" if args.command == "replay" else "ERROR" if chatting else "WARNING")
        if interactive
        else settings.log_level,
        secrets=(
            settings.slack_bot_token,
            settings.slack_app_token,
            settings.nrel_api_key,
            settings.openei_api_key,
            settings.otel_exporter_otlp_headers,
        ),
    )
    if args.command == "replay":
        return replay_command(settings, args.suite, strict_answers=args.strict_answers, quiet=args.quiet)
    if args.command == "doctor":
        return doctor(settings)
    if args.command == "ingest":
        return ingest_command(settings)
    if args.command == "slack":
        return slack(settings)
    if args.command == "samples":
        return samples_command(settings, args.out)
    if args.command == "chat":
        return chat(settings, user=args.user, new_session=args.new_session)
    return run(settings)


def quiet_library_loggers() -> None:
    for name in QUIET_LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


@contextlib.contextmanager
def _muted(logger_name: str) -> Iterator[None]:
    logger = logging.getLogger(logger_name)
    previous = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(previous)


def _subcommand(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise KeyError(name)


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so flushing it at exit does not fail a second time."""
    # (not a real file, as when tests capture it: then nothing is flushed to the closed pipe anyway)
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def samples_command(settings: Settings, out: Path | None) -> int:
    """Write the sample traces to `out`, or to a new folder in DATA_DIR (never over the tracked
    traces/samples unless asked to with --out)."""
    from bot.samples import generate
    from config.clock import utc_now

    if out is None:
        base = settings.data_dir / "samples" / f"{utc_now():%Y%m%d-%H%M%S}"
        for number in itertools.count(1):
            out = base if number == 1 else base.with_name(f"{base.name}-{number}")
            try:
                out.mkdir(parents=True)  # a folder of its own, even for two runs in one second
                break
            except FileExistsError:
                continue
    assert out is not None
    written = generate(out)
    for name, path in written.items():
        print(f"{name}: {path}")
    print(f"Wrote {len(written)} sample traces to {out}. Grade them with `energy-advisor eval {out}`.")
    return EXIT_OK


def replay_command(settings: Settings, suite: Path, *, strict_answers: bool, quiet: bool) -> int:
    from bot.replay.runner import SuiteError, exit_code, replay_suite
    from bot.replay.runner import render as render_replay
    from config.files import load_app_config

    try:
        outcomes = replay_suite(suite, load_app_config(settings.config_dir), strict_answers=strict_answers)
    except (SuiteError, ConfigError) as exc:
        print(f"Cannot replay: {exc}", file=sys.stderr)
        return 2
    print(render_replay(outcomes, show_diffs=not quiet))
    return exit_code(outcomes)


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
            # slack_sdk logs a failed request at ERROR and raises; the message below says it once.
            with _muted("slack_sdk.web.base_client"):
                bot = build_slack_bot(runtime)
        except SlackApiError as exc:
            print(
                f"Slack rejected the bot token ({exc.response.get('error')}); check SLACK_BOT_TOKEN.",
                file=sys.stderr,
            )
            return EXIT_FAILED
        except OSError as exc:  # URLError, connection refused, DNS, TLS
            print(
                f"Could not reach Slack at {settings.slack_api_url} ({getattr(exc, 'reason', None) or exc}); "
                "check the network or SLACK_API_URL.",
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
    if user is not None and not user:
        print(f"No --user given (empty); using {user_id}.", file=sys.stderr)
    try:
        validate_label(user_id)
    except InvalidIdError as exc:
        print(f"--user: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    _tolerate_undecodable_terminal_text()
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


def _tolerate_undecodable_terminal_text() -> None:
    """Bytes typed or piped in that are not valid in the terminal's encoding arrive as lone
    surrogates (which the chat turns into U+FFFD) instead of failing the read; characters the
    terminal cannot show are printed as replacements instead of failing the write."""
    for stream, errors in ((sys.stdin, "surrogateescape"), (sys.stdout, "replace")):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(OSError, ValueError):
                reconfigure(errors=errors)


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
