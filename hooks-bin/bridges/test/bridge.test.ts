// The bridge's failure rules (PROTOCOL.md, "When the server cannot answer"), under node's test
// runner: the bridge (../pi/hooks.ts, compiled) is loaded into a stand-in of the extension API
// (stand-in.ts) with a stand-in server (fake-hooks.ts) as its `HOOKS_BIN`.
//
// Run by tests/tests/e2e/scenarios/bridge_ts.rs (it compiles hooks-bin/bridges/test with the
// pinned tsc into a temporary directory and runs `node --test` there); by hand:
//   tsc -p hooks-bin/bridges/test --outDir /tmp/b --typeRoots DIR/node_modules/@types &&
//   echo '{"type":"module"}' > /tmp/b/package.json && node --test /tmp/b/test/bridge.test.js

import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, test as nodeTest } from "node:test";
import { fileURLToPath } from "node:url";

import type { ExtensionAPI } from "../pi/hooks.js";
import type { Plan } from "./fake-hooks.js";
import { StandInApi, StandInContext } from "./stand-in.js";

const BRIDGE = new URL("../pi/hooks.js", import.meta.url).href;
const FAKE = fileURLToPath(new URL("./fake-hooks.js", import.meta.url));
chmodSync(FAKE, 0o755);

/** The bridge's lines on stderr (`hooks: ...`), since the last load. */
let said: string[] = [];
const write = process.stderr.write.bind(process.stderr);
process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
  const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  if (!text.startsWith("hooks: ")) return write(chunk, ...rest);
  said.push(...text.trimEnd().split("\n").map((l) => l.slice("hooks: ".length)));
  return true;
}) as typeof process.stderr.write;
// Every load adds the bridge's exit hook.
process.setMaxListeners(100);

type Agent = "pi" | "omp";

/** The bridge in a stand-in agent, with a stand-in server following a plan. */
class Harness {
  readonly agent: Agent;
  readonly api = new StandInApi();
  readonly ctx = new StandInContext();
  private readonly dir = mkdtempSync(join(tmpdir(), "hooks-bridge-test-"));
  private readonly planFile = join(this.dir, "plan.json");
  private readonly logFile = join(this.dir, "log.jsonl");

  constructor(agent: Agent, plan: Plan) {
    this.agent = agent;
    this.plan(plan);
  }

  /** What the server does from now on (a server started later reads it too). */
  plan(plan: Plan): void {
    writeFileSync(this.planFile, JSON.stringify(plan));
  }

  /** Evaluates the bridge afresh (a new agent process: new state, unless `keepState`, as pi
   * evaluates extensions again for a new session) and runs its factory with `api`. */
  async load(options: { api?: ExtensionAPI; keepState?: boolean; env?: Record<string, string> } = {}): Promise<void> {
    if (!options.keepState) globalThis.__hooksBridge = undefined;
    said = [];
    Object.assign(process.env, {
      HOOKS_BIN: FAKE,
      HOOKS_BRIDGE_AGENT: this.agent,
      HOOKS_BRIDGE_TIMEOUT_MS: "3000",
      FAKE_HOOKS_PLAN: this.planFile,
      FAKE_HOOKS_LOG: this.logFile,
      ...options.env,
    });
    const bridge = (await import(`${BRIDGE}?load=${++loads}`)) as { default: (pi: ExtensionAPI) => Promise<void> };
    await bridge.default(options.api ?? this.api);
  }

  /** What the servers read, one line each: `describe`, `emit EVENT`, `command NAME`, `end`,
   * and `start` when one started. */
  calls(): string[] {
    if (!existsSync(this.logFile)) return [];
    return readFileSync(this.logFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => {
        const m = JSON.parse(line) as { started?: number; method?: string; params?: { event?: string; name?: string } };
        if (m.started !== undefined) return "start";
        if (m.method === "emit") return `emit ${m.params?.event}`;
        if (m.method === "command") return `command ${m.params?.name}`;
        return String(m.method);
      });
  }

  deliver(name: string, fields: Record<string, unknown> = {}) {
    return this.api.deliver(name, fields, this.ctx);
  }

  /** The bridge's lines on stderr since the load. */
  said(): string[] {
    return said;
  }

  close(): void {
    globalThis.__hooksBridge?.server?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A test, given up after 10 s (a bridge that never answers must not hang the run). */
function test(name: string, fn: () => Promise<void>): void {
  nodeTest(name, { timeout: 10_000 }, fn);
}

let loads = 0;
let open: Harness[] = [];

function harness(agent: Agent, plan: Plan): Harness {
  const h = new Harness(agent, plan);
  open.push(h);
  return h;
}

afterEach(() => {
  for (const h of open) h.close();
  open = [];
});

const EVERY_EVENT = [
  "session_start", "session_before_switch", "session_switch", "session_before_branch", "session_branch",
  "session_before_compact", "session.compacting", "session_compact", "session_before_tree", "session_tree",
  "session_shutdown", "context", "before_agent_start", "agent_start", "agent_end", "turn_start", "turn_end",
  "auto_compaction_start", "auto_compaction_end", "auto_retry_start", "auto_retry_end", "ttsr_triggered",
  "todo_reminder", "tool_call", "tool_result",
];

/** The agent's events an unknown bundle subscribes to: every one the agent offers. */
const OFFERED: Record<Agent, string[]> = {
  pi: [
    "session_start", "session_before_switch", "session_before_fork", "session_before_compact", "session_compact",
    "session_before_tree", "session_tree", "session_shutdown", "context", "before_agent_start", "agent_start",
    "agent_end", "turn_start", "turn_end", "tool_call", "tool_result",
  ].sort(),
  omp: [...EVERY_EVENT].sort(),
};

/** The agent's cancellable session actions, each under its own name. */
const BEFORE: Record<Agent, string[]> = {
  pi: ["session_before_switch", "session_before_fork", "session_before_compact", "session_before_tree"],
  omp: ["session_before_switch", "session_before_branch", "session_before_compact", "session_before_tree"],
};

const TOOL_CALL = { toolName: "bash", toolCallId: "t1", input: { command: "rm -rf /" } };
const TOOL_RESULT = { toolName: "read", toolCallId: "t1", input: {}, content: [{ type: "text", text: "API_KEY=secret" }], isError: false };
const CONTEXT = { messages: [{ role: "user", content: "hello", timestamp: 1 }] };

/** A context's result when its model call is held: one notice, `[messages withheld: WHY]`. */
function heldNotice(result: unknown): string {
  const r = result as { messages?: Array<{ role?: string; content?: Array<{ text?: string }> }> } | undefined;
  assert.equal(r?.messages?.length, 1, `not one message: ${JSON.stringify(result)}`);
  assert.equal(r.messages[0]?.role, "user");
  const text = r.messages[0]?.content?.[0]?.text ?? "";
  assert.match(text, /^\[messages withheld: .+\]$/);
  return text;
}

for (const agent of ["pi", "omp"] as const) {
  describe(`${agent}: a server that exits at start`, () => {
    const DIED = "hooks serve exited (status 3)";

    test("describe fails at load, and every event the agent offers is subscribed", async () => {
      const h = harness(agent, { exit: true });
      await h.load();
      assert.deepEqual(h.api.subscribed(), OFFERED[agent]);
      assert.ok(h.said().some((l) => l.startsWith(`describe failed: ${DIED}; it is asked again`)), h.said().join("\n"));
      assert.equal(h.api.commands.size, 0);
    });

    test("a tool_call is blocked with the reason", async () => {
      const h = harness(agent, { exit: true });
      await h.load();
      assert.deepEqual(await h.deliver("tool_call", TOOL_CALL), { block: true, reason: `hooks: ${DIED}; the tool call is blocked` });
    });

    test("a tool_result's output is withheld", async () => {
      const h = harness(agent, { exit: true });
      await h.load();
      assert.deepEqual(await h.deliver("tool_result", TOOL_RESULT), {
        content: [{ type: "text", text: `[tool output withheld: ${DIED}]` }],
      });
      assert.ok(h.said().includes(`tool_result withheld: ${DIED}`), h.said().join("\n"));
    });

    test("a context holds its model call: the run is aborted, the messages are one notice", async () => {
      const h = harness(agent, { exit: true });
      await h.load();
      assert.equal(heldNotice(await h.deliver("context", CONTEXT)), `[messages withheld: ${DIED}]`);
      assert.equal(h.ctx.aborted, 1);
      assert.ok(h.said().includes(`context failed: ${DIED}; the model call is held`), h.said().join("\n"));
    });

    test("a before_agent_start holds the model call of its prompt, at its context", async () => {
      const h = harness(agent, { exit: true });
      await h.load();
      assert.equal(await h.deliver("before_agent_start", { prompt: "hi", systemPrompt: "" }), undefined);
      assert.equal(h.ctx.aborted, 0);
      assert.ok(h.said().includes(`before_agent_start failed: ${DIED}; the model call of the prompt is held`), h.said().join("\n"));
      // The server is back by the context: its model call is held all the same, unsent.
      h.plan({ handled: ["context"] });
      heldNotice(await h.deliver("context", CONTEXT));
      assert.equal(h.ctx.aborted, 1);
      assert.ok(!h.calls().includes("emit context"), h.calls().join("\n"));
    });

    test("each session_before_* cancels its action", async () => {
      const h = harness(agent, { exit: true });
      await h.load();
      for (const name of BEFORE[agent]) {
        assert.deepEqual(await h.deliver(name, name === "session_before_fork" ? { entryId: "e1", position: "at" } : {}), { cancel: true }, name);
      }
      const ours = BEFORE[agent].map((n) => (n === "session_before_fork" ? "session_before_branch" : n));
      for (const name of ours) assert.ok(h.said().includes(`${name} cancelled: ${DIED}`), `${name}:\n${h.said().join("\n")}`);
    });

    test("any other event is reported once while the reason stays the same, and skipped", async () => {
      const h = harness(agent, { exit: true });
      await h.load();
      assert.equal(await h.deliver("turn_start", { turnIndex: 0, timestamp: 1 }), undefined);
      assert.equal(await h.deliver("turn_end", { turnIndex: 0, message: {}, toolResults: [] }), undefined);
      assert.equal(await h.deliver("agent_end", { messages: [] }), undefined);
      assert.deepEqual(h.said().filter((l) => l.includes("skipped")), [`turn_start skipped: ${DIED}`]);
      // No event was sent: each asked describe of a new server, which exited.
      assert.ok(!h.calls().some((c) => c.startsWith("emit")), h.calls().join("\n"));
    });
  });
}

describe("a binary that does not exist", () => {
  test("a tool_call is blocked, a context held, with the reason", async () => {
    const h = harness("pi", {});
    await h.load({ env: { HOOKS_BIN: "/nonexistent/hooks" } });
    const blocked = (await h.deliver("tool_call", TOOL_CALL)) as { block?: boolean; reason?: string };
    assert.equal(blocked.block, true);
    assert.match(blocked.reason ?? "", /^hooks: cannot start \/nonexistent\/hooks serve --stdio: .*ENOENT.*; the tool call is blocked$/);
    assert.match(heldNotice(await h.deliver("context", CONTEXT)), /cannot start \/nonexistent\/hooks/);
  });
});

describe("an emit answer with `failure`: the event fails by its rule", () => {
  const FAILURE = { hookPath: "guard.rs", event: "x", error: "boom" };
  const failing = (event: string, result: unknown) => ({
    [event]: { answer: { result, errors: [{ ...FAILURE, event }], failure: { ...FAILURE, event } } },
  });

  test("tool_result: the output is withheld, not the result the server combined", async () => {
    const h = harness("pi", { handled: ["tool_result"], emit: failing("tool_result", { content: [{ type: "text", text: "unredacted" }] }) });
    await h.load();
    assert.deepEqual(await h.deliver("tool_result", TOOL_RESULT), {
      content: [{ type: "text", text: "[tool output withheld: guard.rs failed on tool_result: boom]" }],
    });
    assert.ok(h.said().includes("guard.rs failed on tool_result: boom"), h.said().join("\n"));
  });

  test("context: the model call is held", async () => {
    const h = harness("omp", { handled: ["context"], emit: failing("context", { messages: [] }) });
    await h.load();
    assert.equal(heldNotice(await h.deliver("context", CONTEXT)), "[messages withheld: guard.rs failed on context: boom]");
    assert.equal(h.ctx.aborted, 1);
  });

  test("before_agent_start: the prompt's model call is held at its context, which is not sent", async () => {
    const h = harness("pi", { handled: ["before_agent_start", "context"], emit: failing("before_agent_start", null) });
    await h.load();
    assert.equal(await h.deliver("before_agent_start", { prompt: "hi", systemPrompt: "" }), undefined);
    heldNotice(await h.deliver("context", CONTEXT));
    assert.equal(h.ctx.aborted, 1);
    assert.deepEqual(h.calls().filter((c) => c.startsWith("emit")), ["emit before_agent_start"]);
    // The next prompt is not held.
    h.plan({ handled: ["before_agent_start", "context"] });
    await h.deliver("before_agent_start", { prompt: "again", systemPrompt: "" });
    assert.equal(await h.deliver("context", CONTEXT), undefined);
  });

  test("session_before_compact: the compaction is cancelled whatever the result", async () => {
    const h = harness("omp", { handled: ["session_before_compact"], emit: failing("session_before_compact", { cancel: false }) });
    await h.load();
    assert.deepEqual(await h.deliver("session_before_compact", { signal: new AbortController().signal }), { cancel: true });
  });

  test("tool_call: its result is the block the server made of the failure", async () => {
    const block = { block: true, reason: "guard.rs failed on tool_call: boom" };
    const h = harness("pi", { handled: ["tool_call"], emit: failing("tool_call", block) });
    await h.load();
    assert.deepEqual(await h.deliver("tool_call", TOOL_CALL), block);
  });

  test("an event whose rule is to report: reported and skipped", async () => {
    const h = harness("pi", { handled: ["turn_end"], emit: failing("turn_end", null) });
    await h.load();
    assert.equal(await h.deliver("turn_end", { turnIndex: 0, message: {}, toolResults: [] }), undefined);
    assert.ok(h.said().includes("turn_end skipped: guard.rs failed on turn_end: boom"), h.said().join("\n"));
  });
});

describe("a server that fails in the middle of a session", () => {
  const blockedFor = async (h: Harness): Promise<string> => {
    const r = (await h.deliver("tool_call", TOOL_CALL)) as { block?: boolean; reason?: string } | undefined;
    assert.equal(r?.block, true, JSON.stringify(r));
    return r?.reason ?? "";
  };

  test("it exits: the call is blocked, and the next event starts it again", async () => {
    const h = harness("pi", { handled: ["tool_call"], emit: { tool_call: "exit" } });
    await h.load();
    assert.equal(await blockedFor(h), "hooks: hooks serve exited (status 3); the tool call is blocked");
    h.plan({ handled: ["tool_call"], emit: { tool_call: { answer: { result: { block: false }, errors: [] } } } });
    assert.deepEqual(await h.deliver("tool_call", TOOL_CALL), { block: false });
    assert.ok(h.said().includes("hooks serve exited (status 3); starting it again"), h.said().join("\n"));
    assert.deepEqual(h.calls(), ["start", "describe", "emit tool_call", "start", "emit tool_call"]);
  });

  // The budget covers describe too, which waits for the stand-in to start: 2 s, not less, on a busy machine.
  test("it hangs: the call is blocked past the budget", async () => {
    const h = harness("omp", { handled: ["tool_call"], emit: { tool_call: "hang" } });
    await h.load({ env: { HOOKS_BRIDGE_TIMEOUT_MS: "2000" } });
    assert.equal(await blockedFor(h), "hooks: hooks serve did not answer tool_call within 2000 ms; the tool call is blocked");
  });

  test("it answers garbage: the call is blocked", async () => {
    const h = harness("pi", { handled: ["tool_call"], emit: { tool_call: "garbage" } });
    await h.load();
    assert.equal(await blockedFor(h), "hooks: hooks serve answered garbage: this is not JSON; the tool call is blocked");
  });

  test("it answers an error (the session cannot be built): the call is blocked", async () => {
    const h = harness("pi", { handled: ["tool_call"], emit: { tool_call: { error: "the hooks did not load" } } });
    await h.load();
    assert.equal(await blockedFor(h), "hooks: the hooks did not load; the tool call is blocked");
  });

  test("it answers what the protocol does not say: the call is blocked", async () => {
    const h = harness("pi", { handled: ["tool_call", "tool_result"], emit: { tool_call: { answer: { result: 42, errors: [] } }, tool_result: { answer: "yes" } } });
    await h.load();
    assert.equal(await blockedFor(h), "hooks: hooks serve answered tool_call with garbage: result is not an object; the tool call is blocked");
    assert.deepEqual(await h.deliver("tool_result", TOOL_RESULT), {
      content: [{ type: "text", text: "[tool output withheld: hooks serve answered tool_result with garbage: the answer is not an object]" }],
    });
  });
});

describe("describe, asked again until it answers", () => {
  const BUNDLE: Plan = { handled: ["tool_call"], commands: [{ name: "hello", description: "Says hello" }] };

  test("a failed describe is asked again at the next event; the bundle is then served, its commands registered late", async () => {
    const h = harness("pi", { describe: { error: "cannot build" } });
    await h.load();
    assert.deepEqual(h.api.subscribed(), OFFERED.pi);
    assert.equal(h.api.commands.size, 0);
    h.plan(BUNDLE);
    // turn_start asks describe, which answers; the bundle has no turn_start handler: not sent.
    assert.equal(await h.deliver("turn_start", { turnIndex: 0, timestamp: 1 }), undefined);
    assert.ok(h.said().includes("describe answered: the bundle is served from now on"), h.said().join("\n"));
    assert.deepEqual([...h.api.commands.keys()], ["hello"]);
    assert.equal(h.api.commands.get("hello")?.description, "Says hello");
    assert.equal(await h.deliver("tool_call", TOOL_CALL), undefined);
    await h.api.run("hello", "there", h.ctx);
    assert.deepEqual(h.calls(), ["start", "describe", "describe", "emit tool_call", "command hello"]);
  });

  test("until it answers, each event fails by its rule; events that arrive together share one describe", async () => {
    const h = harness("omp", { describe: { error: "cannot build" } });
    await h.load();
    const [call, result] = await Promise.all([h.deliver("tool_call", TOOL_CALL), h.deliver("tool_result", TOOL_RESULT)]);
    assert.deepEqual(call, { block: true, reason: "hooks: cannot build; the tool call is blocked" });
    assert.deepEqual(result, { content: [{ type: "text", text: "[tool output withheld: cannot build]" }] });
    assert.deepEqual(h.calls(), ["start", "describe", "describe"]);
  });

  test("session_shutdown does not ask it", async () => {
    const h = harness("pi", { describe: { error: "cannot build" } });
    await h.load();
    await h.deliver("session_shutdown", { reason: "quit" });
    // The server is alive: the session is ended in it.
    assert.deepEqual(h.calls(), ["start", "describe", "end"]);
  });

  test("load errors leave the bundle unknown: each event fails with them", async () => {
    const h = harness("pi", { describe: { answer: { events: [], commands: [], loadErrors: [{ path: "a.rs", error: "nope" }] } } });
    await h.load();
    assert.deepEqual(h.api.subscribed(), OFFERED.pi);
    assert.deepEqual(await h.deliver("tool_call", TOOL_CALL), { block: true, reason: "hooks: the hooks did not load: a.rs: nope; the tool call is blocked" });
  });

  test("a bundle known at load: only its events are subscribed, and a new evaluation (pi's next session) registers its commands on the new API without asking again", async () => {
    const h = harness("pi", BUNDLE);
    await h.load();
    assert.deepEqual(h.api.subscribed(), ["session_shutdown", "session_start", "tool_call"]);
    assert.deepEqual([...h.api.commands.keys()], ["hello"]);
    const next = new StandInApi();
    await h.load({ api: next, keepState: true });
    assert.deepEqual([...next.commands.keys()], ["hello"]);
    assert.deepEqual(h.calls(), ["start", "describe"]);
  });
});

describe("pi's events under our names", () => {
  test("session_start {reason: new} is session_switch, session_before_fork session_before_branch, a reload's shutdown none", async () => {
    const h = harness("pi", { handled: ["session_switch", "session_before_branch", "session_shutdown"] });
    await h.load();
    await h.deliver("session_start", { reason: "new", previousSessionFile: "/s/a.jsonl" });
    await h.deliver("session_before_fork", { entryId: "e1", position: "at" });
    await h.deliver("session_shutdown", { reason: "reload" });
    assert.deepEqual(h.calls(), ["start", "describe", "emit session_switch", "emit session_before_branch"]);
    await h.deliver("session_shutdown", { reason: "quit" });
    assert.deepEqual(h.calls().slice(4), ["end"]);
  });
});
