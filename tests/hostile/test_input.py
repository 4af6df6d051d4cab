"""Hostile input at the boundaries: bytes that are not text, a broken Slack message, settings a
library reads behind our back, and the command line used the way a newcomer uses it.

Each test's docstring names the hostile input and the promise it checks: no crash (the message is
answered and saved, the command runs), a clear message (said once, naming the fix), nothing
overwritten that was not asked for.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.cli import build_parser, main
from bot.dedup import SeenEvents
from bot.slack_app import create_app
from config.settings import Settings
from tests.advisor_helpers import make_runtime
from tests.servers.slack import FakeSlack
from traces.storage import load_trace

ROOT = Path(__file__).resolve().parents[2]
ENERGY_ADVISOR = Path(sys.executable).with_name("energy-advisor")
REPLACEMENT = "\ufffd"
# What third-party libraries log at INFO when the knowledge base starts (faiss.loader says
# "Could not load library with AVX512 support due to: ModuleNotFoundError"): noise that reads like an error.
LIBRARY_CHATTER = ("faiss", "ModuleNotFoundError", "MilvusLite server", "milvus_lite", "apscheduler")


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def energy_advisor(
    *args: str, cwd: Path, env: dict[str, str], stdin: bytes | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """The installed `energy-advisor` command in its own process (bytes in, text out)."""
    command = [str(ENERGY_ADVISOR)] if ENERGY_ADVISOR.exists() else [sys.executable, "-m", "bot.cli"]
    environment = {**os.environ, "OLLAMA_BASE_URL": closed_port_url(), **env}
    done = subprocess.run(
        [*command, *args], cwd=cwd, env=environment, input=stdin, capture_output=True, timeout=timeout
    )
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )


Command = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Command:
    """`energy-advisor ARGS` run by `main()` in this process, as `energy_advisor()` runs it in its own
    (the environment on top of a closed Ollama port; exit code, stdout, stderr), for promises that
    do not depend on what a fresh interpreter imports (a subprocess costs 1-5 s of CPU). The logging
    set-up a command installs is put back after the test (tests/conftest.py: restored_logging)."""

    def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        monkeypatch.setenv("OLLAMA_BASE_URL", closed_port_url())
        for variable, value in env.items():
            monkeypatch.setenv(variable, value)
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["energy-advisor", *args], code, out, err)

    return run


# --- text that is not valid Unicode ------------------------------------------------------


def assert_answered_and_saved_with_a_replacement(data: Path, stdout: str, stderr: str) -> None:
    assert "Traceback" not in stderr and "surrogates not allowed" not in stderr
    assert "advisor> " in stdout and "something went wrong" not in stdout
    (session_file,) = (data / "memory" / "sessions" / "U1").glob("*.json")
    messages = json.loads(session_file.read_text(encoding="utf-8"))["value"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"] == f"hi {REPLACEMENT}"
    traces = sorted((data / "traces" / "U1").rglob("*.json"))
    assert traces and all(load_trace(path) for path in traces)  # U+FFFD is plain valid JSON
    assert any(REPLACEMENT in path.read_text(encoding="utf-8") for path in traces)
    output = stdout + stderr
    assert not [word for word in LIBRARY_CHATTER if word in output], output


def test_bytes_that_are_not_utf8_in_the_terminal_chat_are_answered_and_saved(tmp_path: Path) -> None:
    """Hostile input: `printf 'hi \\xff\\n/quit\\n' | energy-advisor chat` (a byte that is not UTF-8),
    with Python's default stdin error handler. Promise: no crash (exit 0), the line is answered, and
    the session and trace are saved with the bad byte as U+FFFD; library start-up chatter (logged
    while a fresh process imports them) stays out of the conversation."""
    env = {"DATA_DIR": str(tmp_path / "data"), "LOG_LEVEL": "INFO"}  # LOG_LEVEL as in .env.example
    done = energy_advisor("chat", "--user", "U1", cwd=tmp_path, env=env, stdin=b"hi \xff\n/quit\n")

    assert done.returncode == 0, done.stderr
    assert_answered_and_saved_with_a_replacement(tmp_path / "data", done.stdout, done.stderr)


def test_bytes_that_are_not_utf8_with_strict_terminal_streams_are_answered_and_saved(
    tmp_path: Path, in_process: Command
) -> None:
    """Hostile input: the same bytes with a strict stdin error handler (PYTHONIOENCODING=utf-8:strict:
    standard streams that raise on what is not UTF-8, made here as that setting makes them, around
    `energy-advisor chat` run in this process). Promise: no crash (exit 0), the line is answered, and
    the session and trace are saved with the bad byte as U+FFFD; no library chatter."""
    streams = {
        name: io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict", write_through=True)
        for name, data in (("stdin", b"hi \xff\n/quit\n"), ("stdout", b""), ("stderr", b""))
    }
    env = {"DATA_DIR": str(tmp_path / "data"), "LOG_LEVEL": "INFO"}
    with pytest.MonkeyPatch.context() as terminal:  # put back before the output capture is
        for name, stream in streams.items():
            terminal.setattr(sys, name, stream)
        done = in_process("chat", "--user", "U1", env=env)
    stdout, stderr = (streams[name].buffer.getvalue().decode("utf-8") for name in ("stdout", "stderr"))

    assert done.returncode == 0, stderr
    assert_answered_and_saved_with_a_replacement(tmp_path / "data", stdout, stderr)


def test_a_lone_surrogate_in_a_slack_dm_is_answered_and_saved(data_dir: Path) -> None:
    """Hostile input: a Slack DM whose JSON carries a lone surrogate ("hi \\ud800 🔥"), dispatched
    to the real Bolt app. Promise: no crash, a reply in the thread, and the turn saved in the session
    and its trace, with U+FFFD in place of the surrogate and the emoji kept."""
    bot_token, app_token, team = "xoxb-hostile-bot-token", "xapp-1-hostile-app-token", "T0TEST"
    runtime = make_runtime(data_dir)
    try:
        with FakeSlack(bot_token=bot_token, app_token=app_token, team_id=team) as slack:
            settings = Settings(
                _env_file=None,
                data_dir=data_dir,
                slack_bot_token=bot_token,
                slack_app_token=app_token,
                slack_api_url=slack.api_url,
            )
            app = create_app(
                settings=settings,
                service=runtime.service,
                seen=SeenEvents(data_dir / "slack" / "seen-events.txt"),
                eval_config=runtime.config.eval,
            )
            from slack_bolt.request import BoltRequest

            ts = "1700000000.000001"
            body = json.loads(  # as Slack sends it: the escape survives JSON decoding as a lone surrogate
                '{"type": "event_callback", "team_id": "T0TEST", "event_id": "EvSurrogate", "event": '
                '{"type": "message", "channel_type": "im", "channel": "DU1", "user": "U1", '
                f'"text": "hi \\ud800 \\ud83d\\udd25", "ts": "{ts}", "client_msg_id": "m1"}}}}'
            )
            assert "\ud800" in body["event"]["text"]
            response = app.dispatch(BoltRequest(body=body, mode="socket_mode"))
            assert response.status == 200
            slack.wait_for(lambda: [m for m in slack.answers() if m.get("state") == "stopped"], timeout=20)
            (reply,) = slack.answers()
        assert reply["channel"] == "DU1" and reply["thread_ts"] == ts
        assert "something went wrong" not in reply["text"]
        session = runtime.service.sessions.get(f"{team}-U1", f"DU1-{ts}")
        assert [m.role for m in session.messages] == ["user", "assistant"]
        assert session.messages[0].content == f"hi {REPLACEMENT} 🔥"
        trace = runtime.service.traces.latest(f"{team}-U1")
        assert load_trace(trace) and REPLACEMENT in trace.read_text(encoding="utf-8")
    finally:
        runtime.close()


# --- MILVUS_URI, which pymilvus reads itself ---------------------------------------------


def test_milvus_uri_with_a_file_path_still_works_and_says_to_rename_it(
    tmp_path: Path, in_process: Command
) -> None:
    """Hostile input: `MILVUS_URI=<folder>/kb.db` in the environment (the old name, which pymilvus
    also reads at import and rejects unless it is a server URL). Promise: no crash: `ingest` (in a
    fresh process, where pymilvus is imported) builds the knowledge base in that file; one line says
    to rename the variable; `doctor` reports the file in use and the rename as a warning, and still
    says ready (`doctor` imports no pymilvus, so it runs in this process)."""
    kb = tmp_path / "kb.db"
    env = {"DATA_DIR": str(tmp_path / "data"), "MILVUS_URI": str(kb)}
    done = energy_advisor("ingest", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "Illegal uri" not in done.stderr and "Traceback" not in done.stderr
    assert kb.exists() and "Knowledge base:" in done.stdout
    notes = [line for line in done.stderr.splitlines() if "MILVUS_URI" in line]
    assert notes == [
        "Note: MILVUS_URI is deprecated (pymilvus reads it too and rejects file paths); "
        "rename it to ENERGY_ADVISOR_MILVUS_URI."
    ]

    doctor = in_process("doctor", env=env)
    assert doctor.returncode == 0, doctor.stderr
    assert f"ENERGY_ADVISOR_MILVUS_URI  not set (using {kb})" in doctor.stdout
    assert f"[WARN] knowledge base: using {kb}; MILVUS_URI is deprecated" in doctor.stdout
    assert "Result: ready." in doctor.stdout


def test_the_new_milvus_setting_takes_a_file_path_and_ingest_output_has_no_library_chatter(
    tmp_path: Path,
) -> None:
    """Hostile input: a Milvus Lite file path as ENERGY_ADVISOR_MILVUS_URI (the name pymilvus does not
    read), with `LOG_LEVEL=INFO` (as `.env.example` sets it), and `energy-advisor ingest`. Promises:
    `ingest` builds the knowledge base in exactly that file, with no notice; the output is the
    command's own report, without faiss' "ModuleNotFoundError" lines or "MilvusLite server started"
    (logged while a fresh process imports and starts them)."""
    kb = tmp_path / "elsewhere" / "kb.db"
    env = {"DATA_DIR": str(tmp_path / "data"), "ENERGY_ADVISOR_MILVUS_URI": str(kb), "LOG_LEVEL": "INFO"}
    done = energy_advisor("ingest", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert kb.exists() and not (tmp_path / "data" / "milvus.db").exists()
    assert "MILVUS_URI" not in done.stderr
    output = done.stdout + done.stderr
    assert "Knowledge base:" in output and "Retrieval:" in output
    assert not [word for word in LIBRARY_CHATTER if word in output], output


@pytest.mark.parametrize("variable", ["ENERGY_ADVISOR_MILVUS_URI", "MILVUS_URI"])
def test_a_milvus_server_uri_is_accepted_and_reported(
    tmp_path: Path, variable: str, in_process: Command
) -> None:
    """Hostile input: a Milvus server URI (http://localhost:19530) under the new and the old name.
    Promise: `doctor` does not crash and reports that URI as the knowledge base (no server is needed
    for this check); the old name comes with its rename warning."""
    uri = "http://localhost:19530"
    done = in_process("doctor", env={"DATA_DIR": str(tmp_path / "data"), variable: uri})
    assert done.returncode == 0, done.stderr
    if variable == "ENERGY_ADVISOR_MILVUS_URI":
        assert f"ENERGY_ADVISOR_MILVUS_URI  {uri}\n" in done.stdout
        assert "knowledge base" not in done.stdout
    else:
        assert f"[WARN] knowledge base: using {uri}; MILVUS_URI is deprecated" in done.stdout
    assert "Result: ready." in done.stdout


UNUSABLE_MILVUS_URIS = [
    ("./data/knowledge", "a Milvus Lite file must end in .db"),
    ("localhost:19530", "a Milvus Lite file must end in .db"),
    ("grpc://localhost:19530", "use http://, https:// or tcp:// for a Milvus server"),
    ("http://:19530", "a Milvus server URI needs a host"),
]


def assert_a_clear_milvus_configuration_error(
    done: subprocess.CompletedProcess[str], variable: str, value: str, problem: str
) -> None:
    assert done.returncode == 2
    assert done.stderr.startswith(f"Configuration error: environment / .env: {variable}={value!r}: ")
    assert problem in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("variable", ["ENERGY_ADVISOR_MILVUS_URI", "MILVUS_URI"])
@pytest.mark.parametrize(("value", "problem"), UNUSABLE_MILVUS_URIS)
def test_an_unusable_milvus_uri_is_a_clear_configuration_error(
    tmp_path: Path, variable: str, value: str, problem: str, in_process: Command
) -> None:
    """Hostile input: a Milvus setting that is neither a `.db` file nor a server URI. Promise: `doctor`
    does not say "ready" (every command would fail later): exit 2 with one line naming the variable,
    the value and what is allowed."""
    done = in_process("doctor", env={"DATA_DIR": str(tmp_path / "data"), variable: value})
    assert_a_clear_milvus_configuration_error(done, variable, value, problem)


def test_an_unusable_milvus_uri_stops_the_installed_command_with_exit_2(tmp_path: Path) -> None:
    """The same, through the installed command in its own process (its exit status, its stderr), for
    the old name with a value pymilvus itself would reject at import."""
    value, problem = UNUSABLE_MILVUS_URIS[1]
    done = energy_advisor(
        "doctor", cwd=tmp_path, env={"DATA_DIR": str(tmp_path / "data"), "MILVUS_URI": value}
    )
    assert_a_clear_milvus_configuration_error(done, "MILVUS_URI", value, problem)


def test_pymilvus_never_sees_the_old_name_from_a_dotenv(tmp_path: Path) -> None:
    """Hostile input: `MILVUS_URI=<file>.db` in a `.env` that pymilvus loads itself when imported (it
    looks above its install folder, which is the project when the virtualenv is inside it, or in the
    working folder when run by `python -c`). Promise: importing the knowledge base does not crash."""
    (tmp_path / ".env").write_text(f"MILVUS_URI={tmp_path / 'kb.db'}\n", encoding="utf-8")
    script = (
        "import knowledge.store\n"  # imports pymilvus, which runs load_dotenv() on ./.env here
        "import os, pymilvus.settings\n"
        "assert pymilvus.settings.Config.MILVUS_URI == '', pymilvus.settings.Config.MILVUS_URI\n"
        "print('ok')\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "MILVUS_URI"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    assert "Illegal uri" not in done.stderr


# --- the command line as a newcomer uses it ----------------------------------------------


def test_empty_keys_in_a_dotenv_copied_from_the_example_count_as_not_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hostile input: `.env` copied from `.env.example` unchanged (`NREL_API_KEY=`, `OPENEI_API_KEY=`).
    Promise: `doctor` says the keys are not set (and how to get them), never "is set"."""
    shutil.copy(ROOT / ".env.example", tmp_path / ".env")
    monkeypatch.setenv("OLLAMA_BASE_URL", closed_port_url())
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "NREL_API_KEY is not set" in out and "OPENEI_API_KEY is not set" in out
    assert "KEY is set" not in out
    assert "ENERGY_ADVISOR_MILVUS_URI  not set (using data/milvus.db)" in out


def _summaries() -> dict[str, str]:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    return {action.dest: action.help for action in commands._choices_actions}


@pytest.mark.parametrize("command", ["doctor", "run", "slack", "ingest", "samples", "eval", "chat"])
def test_every_command_describes_itself_in_its_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Hostile input: `energy-advisor <command> --help` from someone who has not read the README.
    Promise: a description of what the command does, not only its usage line."""
    with pytest.raises(SystemExit) as raised:
        main([command, "--help"])
    assert raised.value.code == 0
    help_text = " ".join(capsys.readouterr().out.split())
    summary = _summaries()[command]
    assert summary[1:] in help_text  # the description starts with the summary shown by --help
    assert len(help_text.split(summary[1:], 1)[1].split("options:")[0].split()) > 5  # and says more


def test_eval_without_paths_names_the_command_that_was_typed(capsys: pytest.CaptureFixture[str]) -> None:
    """Hostile input: `energy-advisor eval` with no arguments. Promise: a usage error for
    `energy-advisor eval` saying what to give, not one for `python -m traces.evaluate`."""
    with pytest.raises(SystemExit) as raised:
        main(["eval"])
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert "usage: energy-advisor eval" in err and "energy-advisor eval traces/samples" in err
    assert "python -m traces.evaluate" not in err


def test_eval_piped_into_head_stops_quietly(tmp_path: Path) -> None:
    """Hostile input: `energy-advisor eval TRACES | head -c 100` (the reader leaves early). Promise:
    no BrokenPipeError traceback; the exit code a shell reports for SIGPIPE (141)."""
    for copy in range(12):  # ~200 KB of JSON report: more than a pipe holds
        shutil.copytree(ROOT / "traces" / "samples", tmp_path / "traces" / str(copy))
    command = [str(ENERGY_ADVISOR)] if ENERGY_ADVISOR.exists() else [sys.executable, "-m", "bot.cli"]
    process = subprocess.Popen(
        [*command, "eval", str(tmp_path / "traces"), "--format", "json"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(100)
    process.stdout.close()
    err = process.stderr.read().decode("utf-8", "replace")
    assert process.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_samples_without_out_never_overwrites_the_tracked_samples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hostile input: `energy-advisor samples` without `--out`. Promise: the tracked `traces/samples/`
    is left alone; the traces go to a new folder in DATA_DIR, and the command says where."""
    import bot.samples

    targets: list[Path] = []

    def fake_generate(out: Path = bot.samples.SAMPLES_DIR) -> dict[str, Path]:
        targets.append(out)  # recorded, not written: the real run takes 10 s and is tested elsewhere
        return {"ev-charging-good": out / "ev-charging-good.json"}

    monkeypatch.setattr(bot.samples, "generate", fake_generate)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    assert main(["samples"]) == 0
    assert main(["samples"]) == 0
    first, second = targets
    assert first.parent == second.parent == tmp_path / "data" / "samples" and first != second
    out = capsys.readouterr().out
    assert f"Wrote 1 sample traces to {first}." in out
    assert main(["samples", "--out", str(tmp_path / "chosen")]) == 0
    assert targets[-1] == tmp_path / "chosen"


def test_unreachable_slack_is_one_clear_message(tmp_path: Path, in_process: Command) -> None:
    """Hostile input: Slack tokens set but Slack unreachable (SLACK_API_URL on a closed port).
    Promise: `energy-advisor slack` exits 1 with one line naming the URL and the fix, said once:
    no traceback, no library ERROR line repeating it (its logging goes to the captured stderr)."""
    api_url = closed_port_url() + "/api/"
    env = {
        "DATA_DIR": str(tmp_path / "data"),
        "SLACK_BOT_TOKEN": "xoxb-1-hostile",
        "SLACK_APP_TOKEN": "xapp-1-hostile",
        "SLACK_API_URL": api_url,
    }
    done = in_process("slack", env=env)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"Could not reach Slack at {api_url} (" in done.stderr
    assert "check the network or SLACK_API_URL" in done.stderr
    assert done.stderr.count("Connection refused") == 1, done.stderr
