"""Run the fake Ollama in the foreground, to drive the real app against it in a terminal.

python -m tests.fake_ollama --port 11434 --reply-delay 0.05
OLLAMA_HOST=127.0.0.1:11434 hippo
"""

from __future__ import annotations

import argparse
import signal
import threading

from tests.fake_ollama.server import FakeOllama

_KNOWN_EMBEDDERS = {"embeddinggemma": 768, "all-minilm": 384, "nomic-embed-text": 768}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fake_ollama",
        description="A fake Ollama server on 127.0.0.1, for tests and demos.",
    )
    parser.add_argument("--port", type=int, default=11434, help="port to bind (0: any free one)")
    parser.add_argument(
        "--models",
        nargs="*",
        metavar="NAME",
        help="install only these models (default: qwen3:1.7b, embeddinggemma, all-minilm; "
        "the defaults left out can then be pulled); names of known embedders embed, the rest "
        "chat with tools and thinking",
    )
    parser.add_argument(
        "--reply-delay", type=float, default=0.0, metavar="SECONDS",
        help="pause between streamed chunks, to watch replies arrive",
    )  # fmt: skip
    parser.add_argument("--verbose", action="store_true", help="log each request")
    return parser


def _install(server: FakeOllama, names: list[str]) -> None:
    for name in names:
        dim = _KNOWN_EMBEDDERS.get(name.split(":", 1)[0])
        if dim:
            server.add_model(name, capabilities=("embedding",), embedding_length=dim, family="bert")
        else:
            server.add_model(name, capabilities=("completion", "tools", "thinking"))


def _offer_pulls(server: FakeOllama, installed: list[str]) -> None:
    """Let the default models that are not installed be pulled, with visible progress."""
    have = {name.split(":", 1)[0] for name in installed}
    for name in ("qwen3:1.7b", "embeddinggemma", "all-minilm"):
        if name.split(":", 1)[0] in have:
            continue
        dim = _KNOWN_EMBEDDERS.get(name.split(":", 1)[0])
        server.pull_plan(
            name, layers=(600_000_000, 40_000_000, 12_000), delay=0.05,
            capabilities=("embedding",) if dim else ("completion", "tools", "thinking"),
            embedding_length=dim,
        )  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    """Serve until Ctrl-C."""
    args = _parser().parse_args(argv)
    # A shell starts background jobs with SIGINT ignored, and Python keeps it ignored:
    # this server is stopped by Ctrl-C (or SIGINT from a test), however it was started.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    server = FakeOllama(
        port=args.port,
        default_models=args.models is None,
        reply_delay=args.reply_delay,
        verbose=args.verbose,
    )
    _install(server, args.models or [])
    if args.models is not None:
        _offer_pulls(server, args.models)
    print(f"Fake Ollama listening on {server.start()} (Ctrl-C to stop)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
