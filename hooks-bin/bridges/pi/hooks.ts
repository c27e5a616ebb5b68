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
// its rule (ON_FAILURE, the table of hookwright-cli's `OnFailure`): a tool_call is blocked with the
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
//
// Types: the protocol's messages and the parts of both agents' extension API this file uses are
// declared below (from what pi and oh-my-pi declare; not imported: no dependencies); what comes
// from the server or the agent untyped is `unknown` until it is narrowed. `tsc --noEmit` checks
// it (hooks-bin/bridges/tsconfig.json: strict, type-only syntax, which jiti and bun strip), and
// hooks-bin/bridges/test/ tests its failure rules against a stand-in agent and server.

import { spawn } from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";

/** Written by `hooks install pi|omp`: the binary it was run as. */
const INSTALLED_BINARY = "";

type Agent = "pi" | "omp";

const AGENT: Agent = (() => {
  const named = process.env.HOOKS_BRIDGE_AGENT;
  if (named === "pi" || named === "omp") return named;
  return "Bun" in globalThis ? "omp" : "pi";
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

/** What an event comes to when the server cannot answer it (hookwright-cli's `OnFailure`). */
type Failure = "block" | "withhold" | "hold" | "cancel" | "report";

/**
 * Our 25 events (SPEC.md section 3, in its order), each with its rule when the server cannot
 * answer: a copy of hookwright-cli's `OnFailure::of` (this bridge cannot ask a server that is down),
 * checked against it by hooks-bin/tests/it/bridge_source.rs.
 */
const ON_FAILURE = {
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
} as const satisfies Record<string, Failure>;

/** One of our 25 events. */
type OurEvent = keyof typeof ON_FAILURE;

function isOurs(name: string): name is OurEvent {
  return Object.hasOwn(ON_FAILURE, name);
}

/** Our 25 events. */
const OURS: readonly OurEvent[] = Object.keys(ON_FAILURE).filter(isOurs);

/** The events pi 0.73.1 delivers under our names. */
const PI_DELIVERS = [
  "session_start", "session_before_switch", "session_before_compact", "session_compact",
  "session_before_tree", "session_tree", "session_shutdown", "context", "before_agent_start",
  "agent_start", "agent_end", "turn_start", "turn_end", "tool_call", "tool_result",
] as const satisfies readonly OurEvent[];

/** Which agent event each of ours comes from; missing: the agent cannot deliver it. */
const SOURCES: Record<Agent, Partial<Record<OurEvent, string>>> = {
  pi: {
    ...Object.fromEntries(PI_DELIVERS.map((e) => [e, e])),
    session_switch: "session_start",
    session_branch: "session_start",
    session_before_branch: "session_before_fork",
  },
  omp: Object.fromEntries(OURS.map((e) => [e, e])),
};

/** One of our events, with the payload it is emitted with. */
type Delivery = [event: OurEvent, payload: JsonObject];

/** Our events that one delivery of the agent's event `name` (its fields: `event`) is. */
function route(name: string, event: JsonObject): Delivery[] {
  if (AGENT === "pi") {
    switch (name) {
      case "session_start": {
        const { reason, previousSessionFile } = event;
        switch (reason) {
          case "new":
          case "resume":
            return [["session_switch", { reason, previousSessionFile }]];
          case "fork":
            return [["session_branch", { previousSessionFile }]];
          case "reload":
            return [];
          default:
            return [["session_start", {}]];
        }
      }
      case "session_before_fork":
        return [["session_before_branch", { entryId: event.entryId }]];
      case "session_shutdown":
        return event.reason && event.reason !== "quit" ? [] : [["session_shutdown", {}]];
    }
  }
  return isOurs(name) ? [[name, event]] : [];
}

// ---------------------------------------------------------------------------------------------
// JSON

/** A JSON object as it was parsed or as the agent handed it over: its fields are `unknown`
 * until they are narrowed where they are read. */
type JsonObject = { [field: string]: unknown };

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isSignal(v: unknown): boolean {
  return typeof AbortSignal !== "undefined" && v instanceof AbortSignal;
}

function dropUnserialisable(_key: string, v: unknown): unknown {
  return typeof v === "function" || isSignal(v) ? undefined : v;
}

/** `v` without what JSON cannot carry (an AbortSignal, functions), a cycle cut where it closes. */
function acyclic(v: unknown, path = new Set<object>()): unknown {
  if (v === null || typeof v !== "object") return typeof v === "function" ? undefined : v;
  if (isSignal(v) || path.has(v)) return undefined;
  path.add(v);
  let out: unknown;
  if (Array.isArray(v)) out = v.map((x: unknown) => acyclic(x, path) ?? null);
  else {
    const o: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      const w = acyclic(x, path);
      if (w !== undefined) o[k] = w;
    }
    out = o;
  }
  path.delete(v);
  return out;
}

/** `message` as one line of JSON-RPC. */
function encode(message: RpcMessage): string {
  try {
    return `${JSON.stringify(message, dropUnserialisable)}\n`;
  } catch {
    return `${JSON.stringify(acyclic(message))}\n`;
  }
}

/** An agent's event as the payload of ours: its fields but `type`. */
function fieldsOf(event: AgentEvent): JsonObject {
  const fields: JsonObject = {};
  for (const [k, v] of Object.entries(event)) if (k !== "type") fields[k] = v;
  return fields;
}

/** What was thrown, as text. */
function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function excerpt(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > 200 ? `${one.slice(0, 200)}...` : one;
}

// ---------------------------------------------------------------------------------------------
// The protocol (hooks-bin/bridges/PROTOCOL.md): JSON-RPC 2.0, one message per line

/** A request id: the bridge numbers its requests, the server its own. */
type RpcId = number | string;

interface RpcRequest {
  jsonrpc: "2.0";
  /** Absent in a notification. */
  id?: RpcId;
  method: string;
  params?: unknown;
}

interface RpcResult {
  jsonrpc: "2.0";
  id: RpcId;
  result: unknown;
}

interface RpcErrorAnswer {
  jsonrpc: "2.0";
  id: RpcId | null;
  error: { code: number; message: string; data?: unknown };
}

type RpcMessage = RpcRequest | RpcResult | RpcErrorAnswer;

/** What the agent says about itself with each call (`ctx`; every field optional). */
interface CallContext {
  cwd?: string;
  sessionFile?: string | null;
  sessionId?: string;
  leafId?: string | null;
  hasUI?: boolean;
  idle?: boolean;
  pendingMessages?: boolean;
  model?: { provider: string; id: string };
}

/** A handler's error as the server reports it (`errors`, `failure`). */
interface HookError {
  hookPath: string;
  event: string;
  error: string;
}

/** `describe`'s answer: what the bundle handles. */
interface Bundle {
  events: Array<{ name: string; handlers: number }>;
  commands: Array<{ name: string; description?: string }>;
  loadErrors: Array<{ path: string; error: string }>;
}

/** `emit`'s answer. */
interface Emitted {
  /** The combined result of the event's handlers by its rule (null: none). */
  result: JsonObject | null;
  errors: HookError[];
  /** A handler of an event whose rule gates failed: the event fails by its rule. */
  failure?: HookError;
}

/** The client's methods: their params and what they answer. */
interface ClientMethods {
  describe: { params: { cwd?: string }; answer: Bundle };
  emit: {
    params: { session: string; event: OurEvent; ctx: CallContext; payload: JsonObject };
    answer: Emitted;
  };
  command: {
    params: { session: string; name: string; args: string; ctx: CallContext };
    answer: { errors: HookError[]; error?: string };
  };
  end: { params: { session: string }; answer: { ended: boolean; errors: HookError[] } };
}
type ClientMethod = keyof ClientMethods;

/** The server's requests and notifications (their `session` aside: one per agent process):
 * their params, and what a request is answered (a notification, marked, is not answered). */
interface ServerMethods {
  "ui/confirm": { params: { title: string; message: string }; answer: boolean };
  "ui/select": { params: { title: string; options: string[] }; answer: string | null };
  "ui/input": { params: { title: string; placeholder: string | null }; answer: string | null };
  "ui/editor": { params: { title: string; prefill: string | null }; answer: string | null };
  "ui/notify": { params: { message: string; kind: NotifyKind }; answer: null }; // notification
  "ui/setStatus": { params: { key: string; text: string | null; line: string | null }; answer: null }; // notification
  "ui/setEditorText": { params: { text: string }; answer: null }; // notification
  "host/sendMessage": { params: { message: CustomMessagePayload; options: SendMessageOptions | null }; answer: null }; // notification
  "host/appendEntry": { params: { customType: string; data: unknown }; answer: null }; // notification
  "host/abort": { params: NoParams; answer: null }; // notification
  "host/waitForIdle": { params: NoParams; answer: null };
  "host/newSession": { params: { parentSession: string | null; setup: SetupEntry[] }; answer: Cancelled };
  "host/branch": { params: { entryId: string }; answer: Cancelled };
  "host/navigateTree": { params: { targetId: string; summarize: boolean }; answer: Cancelled };
}
type ServerMethod = keyof ServerMethods;
type NoParams = Record<never, never>;
type Cancelled = { cancelled: boolean };

/** A session entry the server's setup of a new session wrote, to append to the agent's. */
type SetupEntry =
  | { type: "message"; message: AgentMessage }
  | { type: "custom"; customType: string; data: unknown }
  | { type: "custom_message"; customType: string; content: MessageContent; display: boolean; details: unknown };

// Narrowing what the server sent into those types: a value that is not what PROTOCOL.md says
// throws `Garbage` (an answer: its call fails; a request's params: it is answered with an error).

class Garbage extends Error {}

function object(v: unknown, what: string): JsonObject {
  if (!isObject(v)) throw new Garbage(`${what} is not an object`);
  return v;
}

function text(v: unknown, what: string): string {
  if (typeof v !== "string") throw new Garbage(`${what} is not a string`);
  return v;
}

function textOrNull(v: unknown, what: string): string | null {
  return v === undefined || v === null ? null : text(v, what);
}

function textOrAbsent(v: unknown, what: string): string | undefined {
  return v === undefined || v === null ? undefined : text(v, what);
}

function flag(v: unknown, what: string): boolean {
  if (typeof v !== "boolean") throw new Garbage(`${what} is not a boolean`);
  return v;
}

/** A list (absent: empty), each item narrowed by `item`. */
function list<T>(v: unknown, what: string, item: (x: unknown, what: string) => T): T[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Garbage(`${what} is not a list`);
  return v.map((x: unknown, i) => item(x, `${what}[${i}]`));
}

/** A reported error: only shown, so its fields are taken as text whatever they are. */
function hookError(v: unknown, what: string): HookError {
  const o = object(v, what);
  return { hookPath: String(o.hookPath), event: String(o.event), error: String(o.error) };
}

/** A message's content: text, or text and image parts (other fields of a part are kept). */
function content(v: unknown, what: string): MessageContent {
  if (typeof v === "string") return v;
  return list(v, what, (x, at): ContentPart => {
    const part = object(x, at);
    switch (part.type) {
      case "text":
        return { ...part, type: "text", text: text(part.text, `${at}.text`) };
      case "image":
        return { ...part, type: "image", data: text(part.data, `${at}.data`), mimeType: text(part.mimeType, `${at}.mimeType`) };
      default:
        throw new Garbage(`${at}.type is not text or image`);
    }
  });
}

function notifyKind(v: unknown, what: string): NotifyKind {
  if (v === undefined || v === null) return "info";
  if (v === "info" || v === "warning" || v === "error") return v;
  throw new Garbage(`${what} is not info, warning or error`);
}

function sendOptions(v: unknown, what: string): SendMessageOptions | null {
  if (v === undefined || v === null) return null;
  const o = object(v, what);
  const options: SendMessageOptions = {};
  if (o.triggerTurn !== undefined && o.triggerTurn !== null) options.triggerTurn = flag(o.triggerTurn, `${what}.triggerTurn`);
  if (o.deliverAs !== undefined && o.deliverAs !== null) {
    const d = o.deliverAs;
    if (d !== "steer" && d !== "followUp" && d !== "nextTurn") throw new Garbage(`${what}.deliverAs is not steer, followUp or nextTurn`);
    options.deliverAs = d;
  }
  return options;
}

/** The entries of a new session's setup; entries of other types are not the agent's to append. */
function setupEntries(v: unknown, what: string): SetupEntry[] {
  const entries: SetupEntry[] = [];
  for (const [i, x] of list(v, what, object).entries()) {
    const at = `${what}[${i}]`;
    switch (x.type) {
      case "message": {
        const message = object(x.message, `${at}.message`);
        entries.push({ type: "message", message: { ...message, role: text(message.role, `${at}.message.role`) } });
        break;
      }
      case "custom":
        entries.push({ type: "custom", customType: text(x.customType, `${at}.customType`), data: x.data });
        break;
      case "custom_message":
        entries.push({
          type: "custom_message",
          customType: text(x.customType, `${at}.customType`),
          content: content(x.content, `${at}.content`),
          display: flag(x.display, `${at}.display`),
          details: x.details,
        });
        break;
    }
  }
  return entries;
}

/** Each client method's answer, narrowed. */
const ANSWERS: { [M in ClientMethod]: (answer: unknown) => ClientMethods[M]["answer"] } = {
  describe(v) {
    const o = object(v, "the bundle");
    return {
      events: list(o.events, "events", (x, at) => {
        const e = object(x, at);
        const handlers = e.handlers;
        if (typeof handlers !== "number") throw new Garbage(`${at}.handlers is not a number`);
        return { name: text(e.name, `${at}.name`), handlers };
      }),
      commands: list(o.commands, "commands", (x, at) => {
        const c = object(x, at);
        return { name: text(c.name, `${at}.name`), description: textOrAbsent(c.description, `${at}.description`) };
      }),
      loadErrors: list(o.loadErrors, "loadErrors", (x, at) => {
        const e = object(x, at);
        return { path: String(e.path), error: String(e.error) };
      }),
    };
  },
  emit(v) {
    const o = object(v, "the answer");
    const result = o.result ?? null;
    if (result !== null && !isObject(result)) throw new Garbage("result is not an object");
    const errors = list(o.errors, "errors", hookError);
    if (o.failure === undefined || o.failure === null) return { result, errors };
    return { result, errors, failure: hookError(o.failure, "failure") };
  },
  command(v) {
    const o = object(v, "the answer");
    return { errors: list(o.errors, "errors", hookError), error: textOrAbsent(o.error, "error") };
  },
  end(v) {
    const o = object(v, "the answer");
    return { ended: o.ended === true, errors: list(o.errors, "errors", hookError) };
  },
};

/** Each server method's params, narrowed. */
const PARAMS: { [M in ServerMethod]: (params: JsonObject) => ServerMethods[M]["params"] } = {
  "ui/confirm": (p) => ({ title: text(p.title, "title"), message: text(p.message, "message") }),
  "ui/select": (p) => ({ title: text(p.title, "title"), options: list(p.options, "options", text) }),
  "ui/input": (p) => ({ title: text(p.title, "title"), placeholder: textOrNull(p.placeholder, "placeholder") }),
  "ui/editor": (p) => ({ title: text(p.title, "title"), prefill: textOrNull(p.prefill, "prefill") }),
  "ui/notify": (p) => ({ message: text(p.message, "message"), kind: notifyKind(p.kind, "kind") }),
  "ui/setStatus": (p) => ({ key: text(p.key, "key"), text: textOrNull(p.text, "text"), line: textOrNull(p.line, "line") }),
  "ui/setEditorText": (p) => ({ text: text(p.text, "text") }),
  "host/sendMessage": (p) => {
    const m = object(p.message, "message");
    const message: CustomMessagePayload = {
      ...m,
      customType: text(m.customType, "message.customType"),
      content: content(m.content, "message.content"),
      display: flag(m.display, "message.display"),
    };
    return { message, options: sendOptions(p.options, "options") };
  },
  "host/appendEntry": (p) => ({ customType: text(p.customType, "customType"), data: p.data }),
  "host/abort": () => ({}),
  "host/waitForIdle": () => ({}),
  "host/newSession": (p) => ({
    parentSession: textOrNull(p.parentSession, "parentSession"),
    setup: setupEntries(p.setup, "setup"),
  }),
  "host/branch": (p) => ({ entryId: text(p.entryId, "entryId") }),
  "host/navigateTree": (p) => ({ targetId: text(p.targetId, "targetId"), summarize: p.summarize === true }),
};

function isServerMethod(method: string): method is ServerMethod {
  return Object.hasOwn(PARAMS, method);
}

// ---------------------------------------------------------------------------------------------
// The extension API: the parts of pi's (0.73.1, dist/core/extensions/types.d.ts) and oh-my-pi's
// (18.2.3, dist/types/extensibility/extensions/types.d.ts) that the bridge uses, as they declare
// them, narrowed to what both accept; where they differ, both are allowed.

type NotifyKind = "info" | "warning" | "error";

/** A content part of a message (`TextContent`, `ImageContent`). */
type ContentPart = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };
type MessageContent = string | ContentPart[];

/** A message of the agent's session (`AgentMessage`): forwarded as the hooks wrote it. */
type AgentMessage = { readonly role: string };

/** `sendMessage`'s message (pi: `Pick<CustomMessage, ...>`; oh-my-pi: `CustomMessagePayload`). */
type CustomMessagePayload = {
  customType: string;
  content: MessageContent;
  display: boolean;
  details?: unknown;
};

interface SendMessageOptions {
  triggerTurn?: boolean;
  deliverAs?: "steer" | "followUp" | "nextTurn";
}

/** `ctx.ui` (`ExtensionUIContext`). */
export interface ExtensionUI {
  select(title: string, options: string[]): Promise<string | undefined>;
  confirm(title: string, message: string): Promise<boolean>;
  input(title: string, placeholder?: string): Promise<string | undefined>;
  editor(title: string, prefill?: string): Promise<string | undefined>;
  notify(message: string, type?: NotifyKind): void;
  setStatus(key: string, text: string | undefined): void;
  setEditorText(text: string): void;
}

/** `ctx.sessionManager` (`ReadonlySessionManager`). */
export interface ReadonlySessionManager {
  getSessionFile(): string | undefined;
  getSessionId(): string;
  getLeafId(): string | null;
}

/** What a new session's setup callback writes to (`SessionManager`). */
export interface SessionManager {
  appendMessage(message: AgentMessage): string;
  appendCustomEntry(customType: string, data?: unknown): string;
  appendCustomMessageEntry(customType: string, content: MessageContent, display: boolean, details?: unknown): string;
}

/** A handler's context (`ExtensionContext`). pi's throws once its session was replaced. */
export interface ExtensionContext {
  readonly ui: ExtensionUI;
  readonly hasUI: boolean;
  readonly cwd: string;
  readonly sessionManager: ReadonlySessionManager;
  readonly model: { readonly provider: string; readonly id: string } | undefined;
  isIdle(): boolean;
  abort(): void;
  hasPendingMessages(): boolean;
}

/** A command's context (`ExtensionCommandContext`), with the session actions. */
export interface ExtensionCommandContext extends ExtensionContext {
  waitForIdle(): Promise<void>;
  newSession(options?: {
    parentSession?: string;
    setup?: (sessionManager: SessionManager) => Promise<void>;
    /** pi: runs with the new session's context (the command's is stale then); oh-my-pi has
     * no such option (its context stays valid). */
    withSession?: (ctx: ExtensionCommandContext) => Promise<void>;
  }): Promise<Cancelled>;
  /** pi's branch from an entry. */
  fork?(entryId: string): Promise<Cancelled>;
  /** oh-my-pi's. */
  branch?(entryId: string): Promise<Cancelled>;
  navigateTree(targetId: string, options?: { summarize?: boolean }): Promise<Cancelled>;
}

/** An event as the agent hands it to a handler: its `type` and its fields (each event's own
 * interface in the agents' declarations), read through `fieldsOf`. */
export type AgentEvent = { readonly type: string };

/** What a handler answers: the agent applies it as the event's result (undefined: none). */
export type HandlerResult = JsonObject | undefined;

export type EventHandler = (event: AgentEvent, ctx: ExtensionContext) => Promise<HandlerResult>;

/** The extension API (`ExtensionAPI`) the factory gets: pi makes one for every session. */
export interface ExtensionAPI {
  on(event: string, handler: EventHandler): void;
  registerCommand(
    name: string,
    options: { description?: string; handler: (args: string, ctx: ExtensionCommandContext) => Promise<void> },
  ): void;
  sendMessage(message: CustomMessagePayload, options?: SendMessageOptions): void;
  appendEntry(customType: string, data?: unknown): void;
}

// ---------------------------------------------------------------------------------------------
// The server process

/** An answer the server gave as a JSON-RPC error: the server is fine, the request was not. */
class RpcError extends Error {}

/** A request the server sent (with `id`) or a notification (without). */
interface ServerMessage {
  id: RpcId | undefined;
  method: string;
  params: unknown;
}

interface Pending {
  /** The raw `result`: narrowed, then the call resolves or fails. */
  settle: (result: unknown) => void;
  reject: (e: Error) => void;
  what: string;
  budget: number;
  remaining: number;
  since: number;
  started: number;
  timer?: ReturnType<typeof setTimeout>;
}

type Child = ChildProcessByStdio<Writable, Readable, null>;

/** `stream.unref()` where the runtime has it (a child's pipes: node's sockets, bun's). */
function unref(stream: object): void {
  if ("unref" in stream && typeof stream.unref === "function") stream.unref();
}

/** One `hooks serve --stdio` child and the calls waiting for it. */
class Server {
  readonly binary: string;
  private readonly onRequest: (message: ServerMessage) => void;
  private readonly child: Child | undefined;
  private buffered = "";
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Why it can no longer be used; undefined while it can. */
  dead: string | undefined;
  /** Whether a call has failed for `dead` (then the next event starts a new server). */
  noticed = false;
  /** Server requests being answered: the budgets of pending calls are paused meanwhile. */
  private answering = 0;

  constructor(binary: string, onRequest: (message: ServerMessage) => void) {
    this.binary = binary;
    this.onRequest = onRequest;
    let child: Child;
    try {
      child = spawn(binary, ["serve", "--stdio"], { stdio: ["pipe", "pipe", "inherit"], cwd: process.cwd() });
    } catch (e) {
      this.dead = `cannot start ${binary} serve --stdio: ${messageOf(e)}`;
      return;
    }
    this.child = child;
    if (child.pid !== undefined) process.env.HOOKS_SERVE_PID = String(child.pid);
    child.on("error", (e) => this.fail(`cannot start ${binary} serve --stdio: ${e.message} (set HOOKS_BIN, or run \`hooks install ${AGENT}\`)`));
    child.on("exit", (code, signal) => this.fail(`hooks serve exited (${signal ? `signal ${signal}` : `status ${code}`})`));
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
    while (this.dead === undefined && (nl = this.buffered.indexOf("\n")) >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      if (line.trim() === "") continue;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        this.kill(`hooks serve answered garbage: ${excerpt(line)}`);
        return;
      }
      if (!isObject(message) || message.jsonrpc !== "2.0") {
        this.kill(`hooks serve answered garbage: ${excerpt(line)}`);
        return;
      }
      const { id, method } = message;
      if (typeof method === "string") {
        if (id !== undefined && id !== null && typeof id !== "number" && typeof id !== "string") {
          this.kill(`hooks serve sent a request with a bad id: ${excerpt(line)}`);
          return;
        }
        this.onRequest({ id: id ?? undefined, method, params: message.params });
        continue;
      }
      const call = typeof id === "number" ? this.pending.get(id) : undefined;
      if (typeof id !== "number" || !call) {
        this.kill(`hooks serve answered a request it was not sent: ${excerpt(line)}`);
        return;
      }
      this.pending.delete(id);
      if (call.timer) clearTimeout(call.timer);
      if (DEBUG) say(`[debug] +${Date.now() - T0} ms: ${call.what} answered in ${Date.now() - call.started} ms`);
      const error = message.error;
      if (error !== undefined && error !== null) {
        call.reject(new RpcError(isObject(error) && typeof error.message === "string" ? error.message : JSON.stringify(error)));
      } else call.settle(message.result);
    }
  }

  /** Calls `method`; its answer within `budget` ms. */
  call<M extends ClientMethod>(method: M, params: ClientMethods[M]["params"], what: string, budget: number): Promise<ClientMethods[M]["answer"]> {
    const child = this.child;
    if (this.dead !== undefined || !child) return Promise.reject(new Error(this.dead));
    const id = this.nextId++;
    let line: string;
    try {
      line = encode({ jsonrpc: "2.0", id, method, params });
    } catch (e) {
      return Promise.reject(new Error(`${what} cannot be sent: ${messageOf(e)}`));
    }
    const narrow = ANSWERS[method];
    return new Promise((resolve, reject) => {
      const settle = (result: unknown): void => {
        try {
          resolve(narrow(result));
        } catch (e) {
          reject(new Error(`hooks serve answered ${what} with garbage: ${messageOf(e)}`));
        }
      };
      const now = Date.now();
      const call: Pending = { settle, reject, what, budget, remaining: budget, since: now, started: now };
      this.pending.set(id, call);
      if (this.answering === 0) this.arm(call);
      child.stdin.write(line);
    });
  }

  private arm(call: Pending): void {
    call.since = Date.now();
    call.timer = setTimeout(
      () => this.kill(`hooks serve did not answer ${call.what} within ${call.budget} ms`),
      Math.max(0, call.remaining),
    );
    call.timer.unref?.();
  }

  /** Answers the server's request `id`. */
  reply(id: RpcId, result: unknown): void {
    this.write({ jsonrpc: "2.0", id, result: result === undefined ? null : result });
  }

  replyError(id: RpcId, message: string): void {
    this.write({ jsonrpc: "2.0", id, error: { code: -32000, message } });
  }

  private write(message: RpcMessage): void {
    if (this.dead !== undefined || !this.child) return;
    this.child.stdin.write(encode(message));
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
    if (--this.answering === 0 && this.dead === undefined) for (const call of this.pending.values()) this.arm(call);
  }

  private fail(reason: string): void {
    const dead = (this.dead ??= reason);
    if (this.pending.size > 0) this.noticed = true;
    for (const call of this.pending.values()) {
      if (call.timer) clearTimeout(call.timer);
      call.reject(new Error(dead));
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
    const child = this.child;
    if (!child) return;
    try {
      child.stdin.end();
      child.unref();
      unref(child.stdout);
    } catch {}
  }

  /** At the agent's exit. */
  terminate(): void {
    const child = this.child;
    try {
      if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    } catch {}
  }
}

// ---------------------------------------------------------------------------------------------
// The bridge's state

/**
 * The bridge's state: one per agent process, which owns it. The first evaluation of this file
 * creates it on `globalThis.__hooksBridge`, and every later one takes it over (pi evaluates
 * extensions again for every session it replaces), so that the server, its session and what
 * `describe` answered survive; only the functions of this file change it.
 */
export interface BridgeState {
  server?: Server;
  /** What the bundle handles, once `describe` answered without load errors. */
  bundle?: Bundle;
  /** Our events the bundle has handlers of (with `bundle`). */
  handled: Set<OurEvent>;
  /** Why the bundle is not known (without `bundle`). */
  unknown?: string;
  /** The `describe` under way (concurrent events wait for the same one). */
  describing?: Promise<boolean>;
  /** The extension API objects the bundle's commands were registered with. */
  registered: WeakSet<ExtensionAPI>;
  /** Why the prompt's model call is held: its before_agent_start failed (until its context). */
  held?: string;
  /** Our session in the server: this agent process's hook session. */
  session: string;
  /** The agent's latest context (what UI requests use). */
  ctx?: ExtensionContext;
  /** Contexts of the commands running, innermost last (session actions use it). */
  commands: ExtensionCommandContext[];
  /** The latest extension API object (pi makes a new one per session). */
  pi?: ExtensionAPI;
  statusLine?: string;
  warned: boolean;
  /** The reasons last said for a restart and for a skipped event: each said once until a call succeeds. */
  repeated: { restart?: string; skipped?: string };
  exitHook: boolean;
}

declare global {
  // The one global this file has: see `BridgeState`.
  var __hooksBridge: BridgeState | undefined;
}

const bridge: BridgeState = (globalThis.__hooksBridge ??= {
  session: `${AGENT}-${process.pid}-${Date.now().toString(36)}`,
  handled: new Set<OurEvent>(),
  registered: new WeakSet<ExtensionAPI>(),
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
  if (old?.dead !== undefined) {
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
function snapshot(ctx: ExtensionContext): CallContext {
  const s: CallContext = {};
  // pi's context of a replaced session throws: what throws is left out.
  const take = <K extends keyof CallContext>(k: K, f: () => CallContext[K]): void => {
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
  take("model", () => {
    const model = ctx.model;
    return model ? { provider: String(model.provider), id: String(model.id) } : undefined;
  });
  return s;
}

function budget(event: OurEvent): number {
  return event === "session_shutdown" ? SHUTDOWN_BUDGET_MS : BUDGET_MS;
}

/** The agent's result for our `event`'s combined `result`. */
function apply(event: OurEvent, result: JsonObject | null): HandlerResult {
  if (result === null) return undefined;
  if (event === "tool_result") {
    // Upstream applies content and details only (isError is typed, never applied).
    const applied = { ...result };
    delete applied.isError;
    delete applied.isWarning;
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
function failed(event: OurEvent, why: string, ctx: ExtensionContext): HandlerResult {
  const rule: Failure = ON_FAILURE[event];
  switch (rule) {
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
    case "report":
      sayOnce("skipped", why, `${event} skipped: ${why}`);
      return undefined;
  }
}

/**
 * Holds the model call a context is emitted for: the run is aborted (the agent then makes no
 * call), and the messages handed back are one notice, so that the messages the hooks did not
 * see never reach the model, whatever the abort does.
 */
function holdModelCall(why: string, ctx: ExtensionContext): HandlerResult {
  try {
    ctx.abort();
  } catch {}
  return { messages: [{ role: "user", content: [{ type: "text", text: `[messages withheld: ${why}]` }], timestamp: Date.now() }] };
}

function report(errors: HookError[]): void {
  for (const e of errors) {
    const line = `${e.hookPath} failed on ${e.event}: ${e.error}`;
    say(line);
    try {
      if (bridge.ctx?.hasUI) bridge.ctx.ui.notify(`hooks: ${line}`, "error");
    } catch {}
  }
}

/** Emits our `event` for the server session and answers its combined result for the agent. */
async function forward(event: OurEvent, payload: JsonObject, ctx: ExtensionContext): Promise<HandlerResult> {
  bridge.ctx = ctx;
  if (event === "before_agent_start") bridge.held = undefined;
  if (!bridge.bundle) return failed(event, bridge.unknown ?? "the bundle is not known", ctx);
  try {
    const params = { session: bridge.session, event, ctx: snapshot(ctx), payload };
    const emitted = await server().call("emit", params, event, budget(event));
    bridge.repeated = {};
    report(emitted.errors);
    // A handler of an event whose rule gates failed: the event fails by that rule, as when the
    // server cannot answer (a tool_call's block is its result already).
    const f = emitted.failure;
    if (f && event !== "tool_call") return failed(event, `${f.hookPath} failed on ${f.event}: ${f.error}`, ctx);
    return apply(event, emitted.result);
  } catch (e) {
    return failed(event, messageOf(e), ctx);
  }
}

/** session_shutdown: the session ends in the server, whose input is then ended. */
async function shutdown(ctx: ExtensionContext): Promise<void> {
  bridge.ctx = ctx;
  const current = bridge.server;
  if (current && current.dead === undefined) {
    try {
      report((await current.call("end", { session: bridge.session }, "session_shutdown", SHUTDOWN_BUDGET_MS)).errors);
    } catch (e) {
      say(`session_shutdown skipped: ${messageOf(e)}`);
    }
  }
  bridge.server?.close();
}

async function runCommand(name: string, args: string, ctx: ExtensionCommandContext): Promise<void> {
  bridge.ctx = ctx;
  bridge.commands.push(ctx);
  const depth = bridge.commands.length;
  try {
    const params = { session: bridge.session, name, args, ctx: snapshot(ctx) };
    const done = await server().call("command", params, `/${name}`, BUDGET_MS);
    if (done.error !== undefined) throw new Error(done.error);
  } finally {
    bridge.commands.length = depth - 1;
  }
}

// ---------------------------------------------------------------------------------------------
// The server's requests, answered with the agent's context

function stderrUi(ctx: ExtensionContext | undefined): boolean {
  try {
    return !ctx?.hasUI;
  } catch {
    return true;
  }
}

/** A setup callback of `newSession` that appends what the server's setup wrote. */
function replay(entries: SetupEntry[]): (sm: SessionManager) => Promise<void> {
  return async (sm) => {
    for (const e of entries) {
      switch (e.type) {
        case "message":
          sm.appendMessage(e.message);
          break;
        case "custom":
          sm.appendCustomEntry(e.customType, e.data);
          break;
        case "custom_message":
          sm.appendCustomMessageEntry(e.customType, e.content, e.display, e.details);
          break;
      }
    }
  };
}

function agentCtx(): ExtensionContext {
  if (!bridge.ctx) throw new Error("the agent has not called the bridge yet");
  return bridge.ctx;
}

function extensionApi(): ExtensionAPI {
  if (!bridge.pi) throw new Error("the bridge is not loaded");
  return bridge.pi;
}

function commandCtx(): ExtensionCommandContext {
  const ctx = bridge.commands[bridge.commands.length - 1];
  if (!ctx) throw new Error("session actions are available to commands only");
  return ctx;
}

/** How the bridge answers each server method (a notification's answer is not sent). */
const SERVE: { [M in ServerMethod]: (p: ServerMethods[M]["params"]) => Promise<ServerMethods[M]["answer"]> } = {
  "ui/confirm": async (p) => Boolean(await agentCtx().ui.confirm(p.title, p.message)),
  "ui/select": async (p) => (await agentCtx().ui.select(p.title, p.options)) ?? null,
  "ui/input": async (p) => (await agentCtx().ui.input(p.title, p.placeholder ?? undefined)) ?? null,
  "ui/editor": async (p) => (await agentCtx().ui.editor(p.title, p.prefill ?? undefined)) ?? null,
  "ui/notify": async (p) => {
    const ctx = bridge.ctx;
    if (stderrUi(ctx)) say(`[${p.kind}] ${p.message}`);
    ctx?.ui.notify(p.message, p.kind);
    return null;
  },
  "ui/setStatus": async (p) => {
    const ctx = bridge.ctx;
    if (stderrUi(ctx)) {
      if (p.line && p.line !== bridge.statusLine) say(`[status] ${p.line}`);
      bridge.statusLine = p.line ?? undefined;
    }
    ctx?.ui.setStatus(p.key, p.text ?? undefined);
    return null;
  },
  "ui/setEditorText": async (p) => {
    bridge.ctx?.ui.setEditorText(p.text);
    return null;
  },
  "host/sendMessage": async (p) => {
    extensionApi().sendMessage(p.message, p.options ?? undefined);
    return null;
  },
  "host/appendEntry": async (p) => {
    extensionApi().appendEntry(p.customType, p.data ?? undefined);
    return null;
  },
  "host/abort": async () => {
    bridge.ctx?.abort();
    return null;
  },
  "host/waitForIdle": async () => {
    await commandCtx().waitForIdle();
    return null;
  },
  "host/newSession": async (p) => {
    const c = commandCtx();
    const depth = bridge.commands.length;
    const result = await c.newSession({
      parentSession: p.parentSession ?? undefined,
      setup: replay(p.setup),
      // pi: the command's context is stale after the switch; later requests use the new one.
      withSession: async (fresh) => {
        bridge.commands[depth - 1] = fresh;
        bridge.ctx = fresh;
      },
    });
    return { cancelled: Boolean(result?.cancelled) };
  },
  "host/branch": async (p) => {
    const c = commandCtx();
    const result = c.fork ? await c.fork(p.entryId) : c.branch ? await c.branch(p.entryId) : undefined;
    if (!result) throw new Error("the agent cannot branch");
    return { cancelled: Boolean(result.cancelled) };
  },
  "host/navigateTree": async (p) => {
    const result = await commandCtx().navigateTree(p.targetId, { summarize: p.summarize });
    return { cancelled: Boolean(result?.cancelled) };
  },
};

/** The answer to the server's `method` with `params`, narrowed to its type first. */
async function answer<M extends ServerMethod>(method: M, params: unknown): Promise<ServerMethods[M]["answer"]> {
  let narrowed: ServerMethods[M]["params"];
  try {
    narrowed = PARAMS[method](params === undefined || params === null ? {} : object(params, "params"));
  } catch (e) {
    throw new Error(`bad params of ${method}: ${messageOf(e)}`);
  }
  return SERVE[method](narrowed);
}

/** A request or notification from the server. */
function onServerMessage(message: ServerMessage): void {
  const s = bridge.server;
  const { id, method } = message;
  if (id !== undefined) s?.beginAnswer();
  const answered = isServerMethod(method)
    ? answer(method, message.params)
    : Promise.reject(new Error(`the bridge does not know ${method}`));
  answered.then(
    (result) => {
      if (id !== undefined) {
        s?.reply(id, result);
        s?.endAnswer();
      }
    },
    (e: unknown) => {
      const why = messageOf(e);
      if (id !== undefined) {
        s?.replyError(id, why);
        s?.endAnswer();
      } else {
        say(`${method} failed: ${why}`);
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
      const bundle = await server().call("describe", {}, "describe", BUDGET_MS);
      const errors = bundle.loadErrors;
      if (errors.length > 0) {
        bridge.unknown = `the hooks did not load: ${errors.map((e) => `${e.path}: ${e.error}`).join("; ")}`;
        return false;
      }
      adopt(bundle);
      return true;
    } catch (e) {
      bridge.unknown = messageOf(e);
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
  bridge.handled = new Set(bundle.events.filter((e) => e.handlers > 0).map((e) => e.name).filter(isOurs));
  if (wasUnknown) say("describe answered: the bundle is served from now on");
  const sources = SOURCES[AGENT];
  const missing = [...bridge.handled].filter((e) => sources[e] === undefined);
  if (missing.length > 0 && !bridge.warned) {
    bridge.warned = true;
    say(`${AGENT} cannot deliver ${missing.join(", ")}: the bundle's handlers of ${missing.length === 1 ? "it" : "them"} never run here`);
  }
}

/** Registers the bundle's commands with the extension API `pi`, once. */
function registerCommands(pi: ExtensionAPI | undefined): void {
  if (!bridge.bundle || !pi || bridge.registered.has(pi)) return;
  bridge.registered.add(pi);
  const registered = new Set<string>();
  for (const c of bridge.bundle.commands) {
    if (registered.has(c.name)) continue; // the first hook's command wins, as upstream
    registered.add(c.name);
    pi.registerCommand(c.name, {
      description: c.description,
      handler: (args, ctx) => runCommand(c.name, args, ctx),
    });
  }
}

/** One delivery of the agent's event `name`: each of our events it is, forwarded when the bundle may handle it. */
async function deliver(name: string, event: AgentEvent, ctx: ExtensionContext): Promise<HandlerResult> {
  bridge.ctx = ctx;
  const ours = route(name, fieldsOf(event));
  // Until the bundle is known, each event asks again (once), then serves it as at load.
  if (!bridge.bundle && ours.some(([e]) => e !== "session_shutdown") && (await describe())) {
    registerCommands(bridge.pi);
  }
  let result: HandlerResult;
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

export default async function hooksBridge(pi: ExtensionAPI): Promise<void> {
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
  for (const e of bridge.bundle ? bridge.handled : OURS) {
    const source = sources[e];
    if (source !== undefined) wanted.add(source);
  }
  const prompt = sources.before_agent_start;
  const context = sources.context;
  if (prompt !== undefined && context !== undefined && wanted.has(prompt)) wanted.add(context);
  for (const name of wanted) pi.on(name, (event, ctx) => deliver(name, event, ctx));
  registerCommands(pi);
}
