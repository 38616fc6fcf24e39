"""`hippo mcp`'s server, driven by the SDK's own client in process (mcp.Client).

What a client may do: recall and read facts with their evidence; propose a fact that
waits for the user's review under the client's name; log an event. What it may not:
delete, see another profile, or write when served read-only.
"""

from __future__ import annotations

import json

import pytest
from mcp import Client

from assistant.mcp_server import MEMORY_GUIDE, build_server

pytestmark = pytest.mark.anyio

WRITING = {"remember", "log_event"}
READING = {"recall", "search_facts", "list_facts", "get_fact", "core_memory"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _client(engine, **options) -> Client:
    return Client(build_server(engine, **options))


def _data(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content


async def test_the_tools_are_listed_with_schemas_and_none_deletes(engine):
    async with _client(engine) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == READING | WRITING
    assert tools["recall"].input_schema["required"] == ["query"]
    assert all(tool.description for tool in tools.values())
    assert not any("delete" in name or "forget" in name for name in tools)


async def test_read_only_offers_no_writing_tool(engine):
    async with _client(engine, read_only=True) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert names == READING


async def test_recall_returns_memories_quoted_with_kind_date_source_and_id(engine):
    engine.admin.facts.state("My sister Anna lives in Porto")
    async with _client(engine) as client:
        result = await client.call_tool("recall", {"query": "Where does Anna live?"})
    data = _data(result)
    assert data["memories"], data
    best = data["memories"][0]
    assert "Anna" in best["text"] and {"kind", "id", "date", "source", "score"} <= set(best)
    assert "Anna" in json.dumps(data, ensure_ascii=False)


async def test_remember_is_a_proposal_under_the_clients_name_never_active(engine):
    async with _client(engine) as client:
        result = await client.call_tool(
            "remember", {"statement": "Sam runs every Sunday", "why": "Sam said so today"}
        )
    proposal = _data(result)
    assert proposal["status"] == "pending"
    (item,) = engine.admin.review.queue()
    assert item.fact.statement == "Sam runs every Sunday"
    assert item.proposed_by == "mcp"  # the SDK's in-process client calls itself "mcp"
    assert "Sam said so today" in item.evidence[0].text
    assert engine.admin.facts.list(status="active") == []


async def test_search_and_get_fact_show_the_evidence(engine):
    fact = engine.admin.facts.state("I am allergic to peanuts")
    async with _client(engine) as client:
        found = _data(await client.call_tool("search_facts", {"query": "peanuts"}))
        detail = _data(await client.call_tool("get_fact", {"fact_id": fact.id}))
        missing = await client.call_tool("get_fact", {"fact_id": 987_654})
        bad = await client.call_tool("list_facts", {"status": "bogus"})
    assert [f["id"] for f in found["facts"]] == [fact.id]
    assert detail["evidence"][0]["text"] == "I am allergic to peanuts"
    assert missing.is_error and "987654" in missing.content[0].text
    assert bad.is_error and "Unknown status 'bogus'" in bad.content[0].text


async def test_a_scope_serves_that_scope_and_the_general_facts_only(engine):
    engine.admin.facts.state("I use vim", scope="coding")
    engine.admin.facts.state("My salary is private", scope="money")
    engine.admin.facts.state("I live in Lisbon")
    async with _client(engine, scope="coding") as client:
        listed = _data(await client.call_tool("list_facts", {}))
    assert {f["statement"] for f in listed["facts"]} == {"I use vim", "I live in Lisbon"}


async def test_log_event_records_a_sensory_event_from_the_client(engine):
    async with _client(engine) as client:
        logged = _data(await client.call_tool("log_event", {"text": "Finished a 5k run"}))
    (event,) = engine.admin.browse.events()
    assert event.id == logged["event_id"] and event.source == "mcp:mcp"


async def test_resources_and_the_prompt(engine):
    engine.admin.facts.state("I live in Lisbon")
    async with _client(engine) as client:
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        active = await client.read_resource("hippo://facts/active")
        prompt = await client.get_prompt("use_my_memory")
    assert uris == {
        "hippo://core/human",
        "hippo://core/persona",
        "hippo://facts/active",
        "hippo://profile/summary",
    }
    assert active.contents[0].text == "- I live in Lisbon"
    assert prompt.messages[0].content.text == MEMORY_GUIDE


async def test_mcp_clients_lists_what_each_client_wrote(engine, capsys):
    from assistant.cli import main

    async with _client(engine) as client:
        await client.call_tool("remember", {"statement": "Sam runs every Sunday"})
        await client.call_tool("log_event", {"text": "Finished a 5k run"})
        await client.call_tool("log_event", {"text": "Booked the dentist"})
    (use,) = engine.admin.browse.mcp_clients()
    assert (use.name, use.proposals, use.events) == ("mcp", 1, 2)
    engine.close()  # the CLI opens the file itself
    assert main(["mcp", "clients", "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)
    assert (listed["name"], listed["proposals"], listed["events"]) == ("mcp", 1, 2)


async def test_no_attack_of_the_injection_corpus_becomes_a_trusted_fact_through_remember(engine):
    from tests.adversarial.corpus import ATTACKS

    refused = 0
    async with _client(engine) as client:
        for attack in ATTACKS:
            said = await client.call_tool("remember", {"statement": attack.text})
            refused += said.is_error
            await client.call_tool("remember", {"statement": attack.claim, "why": attack.text})
    assert refused == len(ATTACKS)  # an instruction is not a statement about the person
    assert engine.admin.facts.list(status="active", limit=1000) == []
    assert all(item.fact.status == "pending" for item in engine.admin.review.queue())
