// The hooks bridge: runs the hooks compiled into a `hooks` binary inside pi (0.73, node) and
// oh-my-pi (18.2, bun), as an extension of either agent. No npm dependencies (node built-ins only).
//
// At load it starts `hooks serve --stdio` (JSON-RPC 2.0, one message per line; the protocol is
// hooks-bin/bridges/PROTOCOL.md), asks it what the bundle handles (`describe`), subscribes to
// those events only and registers the bundle's commands. If `describe` fails (or answers load
// errors: a hook that did not load may handle anything), every event the agent offers is
// subscribed, `describe` is asked again at each event (once per event) until it answers, and
// meanwhile each event fails by its rule (below); once it answers, the bridge serves the bundle
// as if it had answered at load (its commands are registered then: both agents look a command
// up when it is typed, though pi's interactive autocompletion lists it only after a reload).
// Each event is forwarded without what JSON cannot carry (an AbortSignal, functions); its
// combined result is what this handler returns, so the agent applies it as it would an
// in-process hook's. The server's requests (UI: confirm, select, input, editor, notify,
// setStatus; host: sendMessage, appendEntry, newSession, branch, navigateTree, waitForIdle,
// abort) are answered with the agent's own context. Without an interactive UI (print and json
// modes), notifications and the status line are written to stderr.
//
// pi lacks three of our events; they are mapped: session_start {reason: "new" | "resume"} is
// session_switch, {reason: "fork"} is session_branch, session_before_fork is
// session_before_branch; session_shutdown {reason: "quit"} is session_shutdown (the other reasons
// belong to a switch). Events an agent cannot deliver at all are named once, when the bundle
// is known (at start), if it handles them.
//
// Failure: if the server dies, answers garbage, does not answer within the budget
// (HOOKS_BRIDGE_TIMEOUT_MS, default 25000; 1500 for session_shutdown: under oh-my-pi's 30 s and
// 2 s handler budgets) or cannot build the session (its hooks did not load), the event fails by
// its rule (ON_FAILURE, the table of hooks-bin's `OnFailure`): a tool_call is blocked with the
// reason, a tool_result's output is replaced by `[tool output withheld: REASON]`, a context holds
// its model call (the run is aborted; the messages handed back are one notice) and a
// before_agent_start the model call of its prompt, a session_before_* cancels its action, and
// any other event is reported on stderr and skipped; the server is started again on the next
// event. At session_shutdown its input is ended (it exits) and it no longer keeps the agent
// alive; at the agent's exit it is sent SIGTERM.
//
// Settings: HOOKS_BIN (the binary), else the path `hooks install pi|omp` wrote below, else `hooks`
// on PATH; HOOKS_BRIDGE_AGENT (`pi` or `omp`; default: `omp` under bun, else `pi`);
// HOOKS_BRIDGE_DEBUG=1 (each call's time on stderr). The server's
// pid is in HOOKS_SERVE_PID for the processes the agent starts.

import { spawn } from "node:child_process";

/** Written by `hooks install pi|omp`: the binary it was run as. */
const INSTALLED_BINARY = "";

type Json = any;
type Agent = "pi" | "omp";

const AGENT: Agent = (() => {
  const named = process.env.HOOKS_BRIDGE_AGENT;
  if (named === "pi" || named === "omp") return named;
  return typeof (globalThis as any).Bun === "undefined" ? "pi" : "omp";
})();

function budgetFromEnv(): number {
  const n = Number(process.env.HOOKS_BRIDGE_TIMEOUT_MS);
  return Number.isFinite(n) && n > 0 ? n : 25_000;
}
const BUDGET_MS = budgetFromEnv();
/** HOOKS_BRIDGE_DEBUG=1: every call to the server and its time, on stderr. */
const DEBUG = Boolean(process.env.HOOKS_BRIDGE_DEBUG);
const T0 = Date.now();
const SHUTDOWN_BUDGET_MS = Math.min(1_500, BUDGET_MS);

/** What an event comes to when the server cannot answer it (hooks-bin's `OnFailure`). */
type Failure = "block" | "withhold" | "hold" | "cancel" | "report";

/**
 * Our 25 events (SPEC.md section 3, in its order), each with its rule when the server cannot
 * answer: a copy of hooks-bin's `OnFailure::of` (this bridge cannot ask a server that is down),
 * checked against it by hooks-bin/tests/it/bridge_source.rs.
 */
const ON_FAILURE: Record<string, Failure> = {
  session_start: "report",
  session_before_switch: "cancel",
  session_switch: "report",
  session_before_branch: "cancel",
  session_branch: "report",
  session_before_compact: "cancel",
  "session.compacting": "report",
  session_compact: "report",
  session_before_tree: "cancel",
  session_tree: "report",
  session_shutdown: "report",
  context: "hold",
  before_agent_start: "hold",
  agent_start: "report",
  agent_end: "report",
  turn_start: "report",
  turn_end: "report",
  auto_compaction_start: "report",
  auto_compaction_end: "report",
  auto_retry_start: "report",
  auto_retry_end: "report",
  ttsr_triggered: "report",
  todo_reminder: "report",
  tool_call: "block",
  tool_result: "withhold",
};

/** Our 25 events. */
const OURS = Object.keys(ON_FAILURE);

/** Which agent event each of ours comes from; missing: the agent cannot deliver it. */
const SOURCES: Record<Agent, Record<string, string>> = {
  pi: {
    ...Object.fromEntries(
      [
        "session_start", "session_before_switch", "session_before_compact", "session_compact",
        "session_before_tree", "session_tree", "session_shutdown", "context", "before_agent_start",
        "agent_start", "agent_end", "turn_start", "turn_end", "tool_call", "tool_result",
      ].map((e) => [e, e]),
    ),
    session_switch: "session_start",
    session_branch: "session_start",
    session_before_branch: "session_before_fork",
  },
  omp: Object.fromEntries(OURS.map((e) => [e, e])),
};

/** Our events (with their payloads) that one delivery of the agent's event `name` is. */
function route(name: string, event: Json): Array<[string, Json]> {
  if (AGENT === "pi") {
    switch (name) {
      case "session_start":
        switch (event?.reason) {
          case "new":
          case "resume":
            return [["session_switch", { reason: event.reason, previousSessionFile: event.previousSessionFile }]];
          case "fork":
            return [["session_branch", { previousSessionFile: event.previousSessionFile }]];
          case "reload":
            return [];
          default:
            return [["session_start", {}]];
        }
      case "session_before_fork":
        return [["session_before_branch", { entryId: event?.entryId }]];
      case "session_shutdown":
        return event?.reason && event.reason !== "quit" ? [] : [["session_shutdown", {}]];
    }
  }
  return [[name, event]];
}

// ---------------------------------------------------------------------------------------------
// JSON

function isSignal(v: unknown): boolean {
  return typeof AbortSignal !== "undefined" && v instanceof AbortSignal;
}

function dropUnserialisable(_key: string, v: unknown): unknown {
  return typeof v === "function" || isSignal(v) ? undefined : v;
}

/** `payload` (without its `type`) as JSON text; a cycle is cut where it closes. */
function payloadJson(payload: Json): string {
  const fields: Record<string, unknown> = {};
  if (payload && typeof payload === "object") {
    for (const [k, v] of Object.entries(payload)) if (k !== "type") fields[k] = v;
  }
  try {
    return JSON.stringify(fields, dropUnserialisable);
  } catch {
    const path = new Set<object>();
    const walk = (v: unknown): unknown => {
      if (v === null || typeof v !== "object") return typeof v === "function" ? undefined : v;
      if (isSignal(v) || path.has(v as object)) return undefined;
      path.add(v as object);
      let out: unknown;
      if (Array.isArray(v)) out = v.map((x) => walk(x) ?? null);
      else {
        const o: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v as object)) {
          const w = walk(x);
          if (w !== undefined) o[k] = w;
        }
        out = o;
      }
      path.delete(v as object);
      return out;
    };
    return JSON.stringify(walk(fields));
  }
}

function excerpt(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > 200 ? `${one.slice(0, 200)}...` : one;
}

// ---------------------------------------------------------------------------------------------
// The server process

/** An answer the server gave as a JSON-RPC error: the server is fine, the request was not. */
class RpcError extends Error {}

interface Pending {
  resolve: (v: Json) => void;
  reject: (e: Error) => void;
  what: string;
  budget: number;
  remaining: number;
  since: number;
  started: number;
  timer?: ReturnType<typeof setTimeout>;
}

/** One `hooks serve --stdio` child and the calls waiting for it. */
class Server {
  private child: any;
  private buffered = "";
  private nextId = 1;
  private pending = new Map<number, Pending>();
  /** Why it can no longer be used; undefined while it can. */
  dead: string | undefined;
  /** Whether a call has failed for `dead` (then the next event starts a new server). */
  noticed = false;
  /** Server requests being answered: the budgets of pending calls are paused meanwhile. */
  private answering = 0;

  constructor(
    readonly binary: string,
    private readonly onRequest: (message: Json) => void,
  ) {
    try {
      this.child = spawn(binary, ["serve", "--stdio"], { stdio: ["pipe", "pipe", "inherit"], cwd: process.cwd() });
    } catch (e) {
      this.dead = `cannot start ${binary} serve --stdio: ${(e as Error).message}`;
      return;
    }
    const child = this.child;
    if (child.pid !== undefined) process.env.HOOKS_SERVE_PID = String(child.pid);
    child.on("error", (e: Error) => this.fail(`cannot start ${binary} serve --stdio: ${e.message} (set HOOKS_BIN, or run \`hooks install ${AGENT}\`)`));
    child.on("exit", (code: number | null, signal: string | null) =>
      this.fail(`hooks serve exited (${signal ? `signal ${signal}` : `status ${code}`})`),
    );
    child.stdin.on("error", () => {});
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => this.read(chunk));
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private read(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while (!this.dead && (nl = this.buffered.indexOf("\n")) >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      if (line.trim() === "") continue;
      let message: Json;
      try {
        message = JSON.parse(line);
      } catch {
        this.kill(`hooks serve answered garbage: ${excerpt(line)}`);
        return;
      }
      if (message === null || typeof message !== "object" || message.jsonrpc !== "2.0") {
        this.kill(`hooks serve answered garbage: ${excerpt(line)}`);
        return;
      }
      if (typeof message.method === "string") {
        this.onRequest(message);
        continue;
      }
      const call = this.pending.get(message.id);
      if (!call) {
        this.kill(`hooks serve answered a request it was not sent: ${excerpt(line)}`);
        return;
      }
      this.pending.delete(message.id);
      if (call.timer) clearTimeout(call.timer);
      if (DEBUG) say(`[debug] +${Date.now() - T0} ms: ${call.what} answered in ${Date.now() - call.started} ms`);
      if (message.error) call.reject(new RpcError(String(message.error.message ?? JSON.stringify(message.error))));
      else call.resolve(message.result);
    }
  }

  /** Sends a request whose params are already JSON; its answer within `budget` ms. */
  call(method: string, paramsJson: string, what: string, budget: number): Promise<Json> {
    if (this.dead) return Promise.reject(new Error(this.dead));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const call: Pending = { resolve, reject, what, budget, remaining: budget, since: Date.now(), started: Date.now() };
      this.pending.set(id, call);
      if (this.answering === 0) this.arm(call);
      this.child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${paramsJson}}\n`);
    });
  }

  private arm(call: Pending): void {
    call.since = Date.now();
    call.timer = setTimeout(
      () => this.kill(`hooks serve did not answer ${call.what} within ${call.budget} ms`),
      Math.max(0, call.remaining),
    );
    (call.timer as any).unref?.();
  }

  /** Answers the server's request `id`. */
  reply(id: Json, result: Json): void {
    this.write({ jsonrpc: "2.0", id, result: result === undefined ? null : result });
  }

  replyError(id: Json, message: string): void {
    this.write({ jsonrpc: "2.0", id, error: { code: -32000, message } });
  }

  private write(message: Json): void {
    if (this.dead) return;
    this.child.stdin.write(JSON.stringify(message, dropUnserialisable) + "\n");
  }

  /** The budgets of pending calls stop while the agent answers a server request (a dialog). */
  beginAnswer(): void {
    if (this.answering++ === 0) {
      for (const call of this.pending.values()) {
        if (!call.timer) continue;
        clearTimeout(call.timer);
        call.timer = undefined;
        call.remaining -= Date.now() - call.since;
      }
    }
  }

  endAnswer(): void {
    if (--this.answering === 0 && !this.dead) for (const call of this.pending.values()) this.arm(call);
  }

  private fail(reason: string): void {
    if (!this.dead) this.dead = reason;
    if (this.pending.size > 0) this.noticed = true;
    for (const call of this.pending.values()) {
      if (call.timer) clearTimeout(call.timer);
      call.reject(new Error(this.dead));
    }
    this.pending.clear();
  }

  /** Stops the server for `reason` (it is hung or talks garbage); every pending call fails. */
  kill(reason: string): void {
    this.fail(reason);
    try {
      this.child?.kill("SIGKILL");
    } catch {}
  }

  /** Ends its input (it shuts its sessions down and exits) and lets the agent exit without it. */
  close(): void {
    this.fail("hooks serve was closed at session_shutdown");
    this.noticed = true;
    try {
      this.child.stdin.end();
      this.child.unref();
      this.child.stdout.unref?.();
    } catch {}
  }

  /** At the agent's exit. */
  terminate(): void {
    try {
      if (this.child && this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
    } catch {}
  }
}

// ---------------------------------------------------------------------------------------------
// The bridge: one per agent process (pi evaluates extensions again for every session it
// replaces; the bridge, its server and its server session survive that on globalThis).

interface Bundle {
  events: Array<{ name: string; handlers: number }>;
  commands: Array<{ name: string; description?: string }>;
  loadErrors?: Array<{ path: string; error: string }>;
}

interface Bridge {
  server?: Server;
  /** What the bundle handles, once `describe` answered without load errors. */
  bundle?: Bundle;
  /** Our events the bundle has handlers of (with `bundle`). */
  handled: Set<string>;
  /** Why the bundle is not known (without `bundle`). */
  unknown?: string;
  /** The `describe` under way (concurrent events wait for the same one). */
  describing?: Promise<boolean>;
  /** The extension API objects the bundle's commands were registered with. */
  registered: WeakSet<object>;
  /** Why the prompt's model call is held: its before_agent_start failed (until its context). */
  held?: string;
  /** Our session in the server: this agent process's hook session. */
  session: string;
  /** The agent's latest context (what UI requests use). */
  ctx?: Json;
  /** Contexts of the commands running, innermost last (session actions use it). */
  commands: Json[];
  /** The latest extension API object (pi makes a new one per session). */
  pi?: Json;
  statusLine?: string;
  warned: boolean;
  /** The reasons last said for a restart and for a skipped event: each said once until a call succeeds. */
  repeated: { restart?: string; skipped?: string };
  exitHook: boolean;
}

const bridge: Bridge = ((globalThis as any).__hooksBridge ??= {
  session: `${AGENT}-${process.pid}-${Date.now().toString(36)}`,
  handled: new Set<string>(),
  registered: new WeakSet<object>(),
  commands: [],
  warned: false,
  repeated: {},
  exitHook: false,
});

function binary(): string {
  return process.env.HOOKS_BIN || INSTALLED_BINARY || "hooks";
}

function say(line: string): void {
  process.stderr.write(`hooks: ${line}\n`);
}

/** `line`, unless the last line of its `kind` said since a call succeeded had the same `reason`. */
function sayOnce(kind: "restart" | "skipped", reason: string, line: string): void {
  if (reason === bridge.repeated[kind]) return;
  bridge.repeated[kind] = reason;
  say(line);
}

/**
 * The server. One that died fails the first call after its death (by its event's rule, with the
 * reason) and is started again on the next.
 */
function server(): Server {
  const old = bridge.server;
  if (old?.dead) {
    if (!old.noticed) {
      old.noticed = true;
      throw new Error(old.dead);
    }
    if (!old.dead.includes("closed at session_shutdown")) sayOnce("restart", old.dead, `${old.dead}; starting it again`);
    bridge.server = undefined;
  }
  bridge.server ??= new Server(binary(), onServerMessage);
  return bridge.server;
}

/** What the server's hooks may ask of the context at call time. */
function snapshot(ctx: Json): string {
  const s: Record<string, unknown> = {};
  const take = (k: string, f: () => unknown) => {
    try {
      const v = f();
      if (v !== undefined) s[k] = v;
    } catch {}
  };
  take("cwd", () => ctx.cwd);
  take("sessionFile", () => ctx.sessionManager.getSessionFile() ?? null);
  take("sessionId", () => ctx.sessionManager.getSessionId());
  take("leafId", () => ctx.sessionManager.getLeafId() ?? null);
  take("hasUI", () => Boolean(ctx.hasUI));
  take("idle", () => ctx.isIdle());
  take("pendingMessages", () => ctx.hasPendingMessages());
  take("model", () => (ctx.model ? { provider: String(ctx.model.provider), id: String(ctx.model.id) } : undefined));
  return JSON.stringify(s);
}

function budget(event: string): number {
  return event === "session_shutdown" ? SHUTDOWN_BUDGET_MS : BUDGET_MS;
}

/** The agent's result for our `event`'s combined `result`. */
function apply(event: string, result: Json): Json {
  if (result === null || result === undefined) return undefined;
  if (event === "tool_result") {
    // Upstream applies content and details only (isError is typed, never applied).
    const { isError: _e, isWarning: _w, ...applied } = result;
    return applied;
  }
  return result;
}

/** A line on stderr, and a warning in the UI when there is one. */
function warn(line: string): void {
  say(line);
  try {
    if (bridge.ctx?.hasUI) bridge.ctx.ui.notify(`hooks: ${line}`, "warning");
  } catch {}
}

/**
 * What the agent gets for our `event` when the server cannot answer it (`why`): its rule
 * (ON_FAILURE), as the command adapters apply it.
 */
function failed(event: string, why: string, ctx: Json): Json {
  switch (ON_FAILURE[event]) {
    case "block":
      return { block: true, reason: `hooks: ${why}; the tool call is blocked` };
    case "withhold":
      warn(`tool_result withheld: ${why}`);
      return { content: [{ type: "text", text: `[tool output withheld: ${why}]` }] };
    case "cancel":
      warn(`${event} cancelled: ${why}`);
      return { cancel: true };
    case "hold":
      if (event === "context") {
        warn(`context failed: ${why}; the model call is held`);
        return holdModelCall(why, ctx);
      }
      // The agent sends the prompt whatever this handler answers: its model call is held at
      // the context the agent emits before it.
      bridge.held = why;
      warn(`before_agent_start failed: ${why}; the model call of the prompt is held`);
      return undefined;
    default:
      sayOnce("skipped", why, `${event} skipped: ${why}`);
      return undefined;
  }
}

/**
 * Holds the model call a context is emitted for: the run is aborted (the agent then makes no
 * call), and the messages handed back are one notice, so that the messages the hooks did not
 * see never reach the model, whatever the abort does.
 */
function holdModelCall(why: string, ctx: Json): Json {
  try {
    ctx.abort();
  } catch {}
  return { messages: [{ role: "user", content: [{ type: "text", text: `[messages withheld: ${why}]` }], timestamp: Date.now() }] };
}

function report(errors: Json): void {
  if (!Array.isArray(errors)) return;
  for (const e of errors) {
    const line = `${e.hookPath} failed on ${e.event}: ${e.error}`;
    say(line);
    try {
      if (bridge.ctx?.hasUI) bridge.ctx.ui.notify(`hooks: ${line}`, "error");
    } catch {}
  }
}

/** Emits our `event` for the server session and answers its combined result for the agent. */
async function forward(event: string, payload: Json, ctx: Json): Promise<Json> {
  bridge.ctx = ctx;
  if (event === "before_agent_start") bridge.held = undefined;
  if (!bridge.bundle) return failed(event, bridge.unknown ?? "the bundle is not known", ctx);
  const params = `{"session":${JSON.stringify(bridge.session)},"event":${JSON.stringify(event)},"ctx":${snapshot(ctx)},"payload":${payloadJson(payload)}}`;
  try {
    const emitted = await server().call("emit", params, event, budget(event));
    bridge.repeated = {};
    report(emitted?.errors);
    // A handler of an event whose rule gates failed: the event fails by that rule, as when the
    // server cannot answer (a tool_call's block is its result already).
    const f = emitted?.failure;
    if (f && event !== "tool_call") return failed(event, `${f.hookPath} failed on ${f.event}: ${f.error}`, ctx);
    return apply(event, emitted?.result);
  } catch (e) {
    return failed(event, (e as Error).message, ctx);
  }
}

/** session_shutdown: the session ends in the server, whose input is then ended. */
async function shutdown(ctx: Json): Promise<void> {
  bridge.ctx = ctx;
  const current = bridge.server;
  if (current && !current.dead) {
    try {
      report((await current.call("end", JSON.stringify({ session: bridge.session }), "session_shutdown", SHUTDOWN_BUDGET_MS))?.errors);
    } catch (e) {
      say(`session_shutdown skipped: ${(e as Error).message}`);
    }
  }
  bridge.server?.close();
}

async function runCommand(name: string, args: string, ctx: Json): Promise<void> {
  bridge.ctx = ctx;
  bridge.commands.push(ctx);
  const depth = bridge.commands.length;
  try {
    const params = `{"session":${JSON.stringify(bridge.session)},"name":${JSON.stringify(name)},"args":${JSON.stringify(args)},"ctx":${snapshot(ctx)}}`;
    const done = await server().call("command", params, `/${name}`, BUDGET_MS);
    if (done?.error) throw new Error(done.error);
  } finally {
    bridge.commands.length = depth - 1;
  }
}

// ---------------------------------------------------------------------------------------------
// The server's requests, answered with the agent's context

function stderrUi(ctx: Json): boolean {
  try {
    return !ctx?.hasUI;
  } catch {
    return true;
  }
}

/** A setup callback of `newSession` that appends what the server's setup wrote. */
function replay(entries: Json[]): (sm: Json) => Promise<void> {
  return async (sm: Json) => {
    for (const e of entries ?? []) {
      if (e.type === "message") sm.appendMessage(e.message);
      else if (e.type === "custom") sm.appendCustomEntry(e.customType, e.data);
      else if (e.type === "custom_message") sm.appendCustomMessageEntry(e.customType, e.content, e.display, e.details);
    }
  };
}

function commandCtx(): Json {
  const ctx = bridge.commands[bridge.commands.length - 1];
  if (!ctx) throw new Error("session actions are available to commands only");
  return ctx;
}

async function handle(method: string, p: Json): Promise<Json> {
  const ctx = bridge.ctx;
  switch (method) {
    case "ui/confirm":
      return Boolean(await ctx.ui.confirm(p.title, p.message));
    case "ui/select":
      return (await ctx.ui.select(p.title, p.options)) ?? null;
    case "ui/input":
      return (await ctx.ui.input(p.title, p.placeholder ?? undefined)) ?? null;
    case "ui/editor":
      return (await ctx.ui.editor(p.title, p.prefill ?? undefined)) ?? null;
    case "ui/notify": {
      const kind = p.kind ?? "info";
      if (stderrUi(ctx)) say(`[${kind}] ${p.message}`);
      ctx?.ui.notify(p.message, kind);
      return null;
    }
    case "ui/setStatus": {
      if (stderrUi(ctx)) {
        if (p.line && p.line !== bridge.statusLine) say(`[status] ${p.line}`);
        bridge.statusLine = p.line ?? undefined;
      }
      ctx?.ui.setStatus(p.key, p.text ?? undefined);
      return null;
    }
    case "ui/setEditorText":
      ctx?.ui.setEditorText(p.text);
      return null;
    case "host/sendMessage":
      bridge.pi.sendMessage(p.message, p.options ?? undefined);
      return null;
    case "host/appendEntry":
      bridge.pi.appendEntry(p.customType, p.data ?? undefined);
      return null;
    case "host/abort":
      ctx?.abort();
      return null;
    case "host/waitForIdle":
      await commandCtx().waitForIdle();
      return null;
    case "host/newSession": {
      const c = commandCtx();
      const depth = bridge.commands.length;
      const result = await c.newSession({
        parentSession: p.parentSession ?? undefined,
        setup: replay(p.setup),
        // pi: the command's context is stale after the switch; later requests use the new one.
        withSession: async (fresh: Json) => {
          bridge.commands[depth - 1] = fresh;
          bridge.ctx = fresh;
        },
      });
      return { cancelled: Boolean(result?.cancelled) };
    }
    case "host/branch": {
      const c = commandCtx();
      const result = typeof c.fork === "function" ? await c.fork(p.entryId) : await c.branch(p.entryId);
      return { cancelled: Boolean(result?.cancelled) };
    }
    case "host/navigateTree": {
      const result = await commandCtx().navigateTree(p.targetId, { summarize: Boolean(p.summarize) });
      return { cancelled: Boolean(result?.cancelled) };
    }
  }
  throw new Error(`the bridge does not know ${method}`);
}

/** A request or notification from the server. */
function onServerMessage(message: Json): void {
  const s = bridge.server;
  const isRequest = message.id !== undefined && message.id !== null;
  if (isRequest) s?.beginAnswer();
  handle(message.method, message.params ?? {}).then(
    (result) => {
      if (isRequest) {
        s?.reply(message.id, result);
        s?.endAnswer();
      }
    },
    (e) => {
      const why = (e as Error)?.message ?? String(e);
      if (isRequest) {
        s?.replyError(message.id, why);
        s?.endAnswer();
      } else {
        say(`${message.method} failed: ${why}`);
      }
    },
  );
}

// ---------------------------------------------------------------------------------------------
// The extension

/**
 * Asks the server what the bundle handles; true once it answered without load errors, and the
 * bundle is then served (`bridge.bundle`, `bridge.handled`), else `bridge.unknown` says why.
 * Concurrent callers share one call.
 */
function describe(): Promise<boolean> {
  bridge.describing ??= (async () => {
    try {
      const bundle: Bundle = await server().call("describe", "{}", "describe", BUDGET_MS);
      const errors = bundle?.loadErrors ?? [];
      if (errors.length > 0) {
        bridge.unknown = `the hooks did not load: ${errors.map((e) => `${e.path}: ${e.error}`).join("; ")}`;
        return false;
      }
      adopt(bundle);
      return true;
    } catch (e) {
      bridge.unknown = (e as Error).message;
      return false;
    }
  })().finally(() => {
    bridge.describing = undefined;
  });
  return bridge.describing;
}

/** Serves `bundle`: what it handles, and the events it handles that the agent cannot deliver. */
function adopt(bundle: Bundle): void {
  const wasUnknown = bridge.unknown !== undefined;
  bridge.bundle = bundle;
  bridge.unknown = undefined;
  bridge.handled = new Set((bundle.events ?? []).filter((e) => e.handlers > 0).map((e) => e.name));
  if (wasUnknown) say("describe answered: the bundle is served from now on");
  const sources = SOURCES[AGENT];
  const missing = [...bridge.handled].filter((e) => !(e in sources));
  if (missing.length > 0 && !bridge.warned) {
    bridge.warned = true;
    say(`${AGENT} cannot deliver ${missing.join(", ")}: the bundle's handlers of ${missing.length === 1 ? "it" : "them"} never run here`);
  }
}

/** Registers the bundle's commands with the extension API `pi`, once. */
function registerCommands(pi: Json): void {
  if (!bridge.bundle || !pi || bridge.registered.has(pi)) return;
  bridge.registered.add(pi);
  const registered = new Set<string>();
  for (const c of bridge.bundle.commands ?? []) {
    if (registered.has(c.name)) continue; // the first hook's command wins, as upstream
    registered.add(c.name);
    pi.registerCommand(c.name, {
      description: c.description,
      handler: (args: string, ctx: Json) => runCommand(c.name, args, ctx),
    });
  }
}

/** One delivery of the agent's event `name`: each of our events it is, forwarded when the bundle may handle it. */
async function deliver(name: string, event: Json, ctx: Json): Promise<Json> {
  bridge.ctx = ctx;
  const ours = route(name, event);
  // Until the bundle is known, each event asks again (once), then serves it as at load.
  if (!bridge.bundle && ours.some(([e]) => e !== "session_shutdown") && (await describe())) {
    registerCommands(bridge.pi);
  }
  let result: Json;
  for (const [e, payload] of ours) {
    if (e === "session_shutdown") await shutdown(ctx);
    else if (e === "context" && bridge.held !== undefined) {
      result = holdModelCall(bridge.held, ctx);
      bridge.held = undefined;
    } else if (e === "session_start" || !bridge.bundle || bridge.handled.has(e)) {
      result = await forward(e, payload, ctx);
    }
  }
  return result;
}

export default async function hooksBridge(pi: Json): Promise<void> {
  bridge.pi = pi;
  if (DEBUG) say(`[debug] +${Date.now() - T0} ms: loaded`);
  if (!bridge.exitHook) {
    bridge.exitHook = true;
    process.on("exit", () => {
      if (DEBUG) say(`[debug] +${Date.now() - T0} ms: exit`);
      bridge.server?.terminate();
    });
  }
  if (!bridge.bundle && !(await describe())) {
    say(
      `describe failed: ${bridge.unknown}; it is asked again at each event, and until it answers ` +
        "each event fails by its rule (a tool call is blocked, a tool output withheld, a model call held)",
    );
  }
  // The agent's events to subscribe to: those ours come from (all of them while the bundle is
  // not known), and the session's start and end; a held prompt is held at its context.
  const sources = SOURCES[AGENT];
  const wanted = new Set(["session_start", "session_shutdown"]);
  for (const e of bridge.bundle ? bridge.handled : OURS) if (sources[e]) wanted.add(sources[e]);
  if (wanted.has(sources.before_agent_start)) wanted.add(sources.context);
  for (const name of wanted) pi.on(name, (event: Json, ctx: Json) => deliver(name, event, ctx));
  registerCommands(pi);
}
