"""An export rendered as Markdown a person can read: core memory, facts, episodes, sessions."""

from __future__ import annotations

from typing import Any

__all__ = ["render_markdown"]

_STATUS_ORDER = ("active", "pending", "superseded", "expired", "rejected")


def _day(stamp: str | None) -> str:
    return stamp[:10] if stamp else "?"


def _minute(stamp: str | None) -> str:
    return stamp[:16].replace("T", " ") if stamp else "?"


def _quote(text: str) -> str:
    """Memory text as inert Markdown: every line quoted, so it can't become a heading."""
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines() or [""])


def render_markdown(data: dict[str, Any]) -> str:
    """The Markdown form of an export (see ``ExportAdmin.export``)."""
    out = [
        f"# Hippo memory: profile {data['profile']['name']}",
        "",
        f"Exported {_minute(data['exported_at'])} UTC (format {data['format']} "
        f"v{data['version']}).",
        "",
    ]
    out += _core(data) + _facts(data) + _episodes(data) + _events(data)
    out += _documents(data) + _sessions(data)
    return "\n".join(out) + "\n"


def _core(data: dict[str, Any]) -> list[str]:
    out = ["## Core memory", ""]
    for block in data["core"]["blocks"]:
        out += [f"### {block['label']} ({len(block['value'])}/{block['char_limit']} chars)", ""]
        out += [_quote(block["value"]), ""]
    return out if data["core"]["blocks"] else [*out, "(defaults)", ""]


def _facts(data: dict[str, Any]) -> list[str]:
    out = [f"## Facts ({len(data['facts'])})", ""]
    for status in _STATUS_ORDER:
        facts = [f for f in data["facts"] if f["status"] == status]
        if not facts:
            continue
        out += [f"### {status.capitalize()} ({len(facts)})", ""]
        for fact in facts:
            scope = f" [{fact['scope']}]" if fact["scope"] else ""
            pin = " (pinned)" if fact["pinned"] else ""
            until = f" until {_day(fact['valid_to'])}" if fact["valid_to"] else ""
            out.append(
                f"- {fact['statement']}{scope}{pin} - {fact['source_kind']}, confidence "
                f"{fact['confidence']:.2f}, learned {_day(fact['learned_at'])}{until}"
            )
            for item in fact["evidence"]:
                quote = f': "{item["quote"]}"' if item["quote"] else ""
                out.append(f"  - evidence: {item['kind']} {item['ref_id']}{quote}")
        out.append("")
    return out


def _episodes(data: dict[str, Any]) -> list[str]:
    out = [f"## Episodes ({len(data['episodes'])})", ""]
    for episode in sorted(data["episodes"], key=lambda e: e["started_at"]):
        title = f"{episode['title']}: " if episode["title"] else ""
        out.append(
            f"- {_day(episode['started_at'])} (importance {episode['importance']:.0f}) "
            f"{title}{' '.join(episode['summary'].split())}"
        )
    return [*out, ""]


def _events(data: dict[str, Any]) -> list[str]:
    out = [f"## Events ({len(data['events'])})", ""]
    for event in data["events"]:
        out.append(f"- {_minute(event['occurred_at'])} ({event['source']}): {event['text']}")
    return [*out, ""]


def _documents(data: dict[str, Any]) -> list[str]:
    out = [f"## Documents ({len(data['documents'])})", ""]
    for document in data["documents"]:
        out.append(
            f"- {document['title'] or document['path']} ({len(document['chunks'])} chunks, "
            f"{document['path']})"
        )
    return [*out, ""]


def _sessions(data: dict[str, Any]) -> list[str]:
    out = [f"## Sessions ({len(data['sessions'])})", ""]
    for session in data["sessions"]:
        out += [f"### {_minute(session['started_at'])} {session['title'] or '(untitled)'}", ""]
        for message in session["messages"]:
            who = message["speaker"] or ("You" if message["role"] == "user" else "Hippo")
            cut = ", cut short at the model's length limit" if message["status"] == "cut" else ""
            out += [
                f"**{who}** ({_minute(message['created_at'])}{cut}):",
                "",
                _quote(message["content"]),
                "",
            ]
    return out
