// oh-my-pi's own HookToolWrapper under bun, timed as hookwright's `wrapper_execute` rows are
// (benches/dispatch.rs): a tool named `bash` that answers one `ok` text chunk, the input
// `{"command": "ls -la", "timeout": 120}`, handlers that allow (return nothing), every call
// awaited. No dependencies beyond the installed oh-my-pi; see README.md for how to run it.
//
//   bun hooks-core/benches/bun/wrapper.ts [OMP_PACKAGE_DIR]
//
// OMP_PACKAGE_DIR is the `@oh-my-pi/pi-coding-agent` package (default: the e2e cache's). Prints
// one line per row, `row median_ns min_ns`, the median over rounds of the time per call; the
// rows take turns round by round, so a slow moment of the machine falls on all of them.

import { homedir } from "node:os";
import { join } from "node:path";

const pkg =
	process.argv[2] ??
	process.env.OMP_PACKAGE_DIR ??
	join(
		homedir(),
		".cache/hooks-e2e/@oh-my-pi+pi-coding-agent@18.2.3/node_modules/@oh-my-pi/pi-coding-agent",
	);
const { HookToolWrapper } = await import(join(pkg, "src/extensibility/hooks/tool-wrapper.ts"));
const { HookRunner } = await import(join(pkg, "src/extensibility/hooks/runner.ts"));
const version = (await import(join(pkg, "package.json"), { with: { type: "json" } })).default.version;

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const CALLS = Number(process.env.CALLS ?? 100_000);

/** A tool that does nothing and answers `ok`, as `Noop` in dispatch.rs. */
function noop() {
	return {
		name: "bash",
		label: "bash",
		description: "does nothing",
		parameters: { type: "object", properties: {} },
		async execute(_toolCallId: string, _params: unknown) {
			return { content: [{ type: "text", text: "ok" }] };
		},
	};
}

/** A loaded hook as oh-my-pi's loader builds it, with `handlers` for the given events. */
function hook(handlers: Record<string, Function[]>) {
	return {
		path: "/bench/hook.ts",
		resolvedPath: "/bench/hook.ts",
		handlers: new Map(Object.entries(handlers)),
		messageRenderers: new Map(),
		commands: new Map(),
		setSendMessageHandler() {},
		setAppendEntryHandler() {},
	};
}

function runner(hooks: ReturnType<typeof hook>[]) {
	return new HookRunner(hooks, "/bench", {}, {});
}

const allowSync = (_event: unknown, _ctx: unknown) => undefined;
const allowAsync = async (_event: unknown, _ctx: unknown) => undefined;

function wrapped(handler: Function) {
	return new HookToolWrapper(noop(), runner([hook({ tool_call: [handler], tool_result: [handler] })]));
}

const input = { command: "ls -la", timeout: 120 };
const raw = noop();
const bare = new HookToolWrapper(noop(), runner([]));
const sync = wrapped(allowSync);
const async_ = wrapped(allowAsync);

// The answers are what the Rust side answers.
for (const tool of [raw, bare, sync, async_]) {
	const out = await tool.execute("call-1", input);
	if (out.content[0].text !== "ok") throw new Error(`unexpected answer ${JSON.stringify(out)}`);
}

const rows: [string, { execute(id: string, input: unknown): Promise<unknown> }][] = [
	["wrapper_execute/raw_tool", raw],
	["wrapper_execute/no_handlers", bare],
	["wrapper_execute/sync/1+1", sync],
	["wrapper_execute/async/1+1", async_],
];

/** A timing loop of its own for each row (compiled from its own source, so that the JIT's
 * feedback of one row's calls does not make another row's call sites polymorphic). */
function timer(): (tool: (typeof rows)[number][1], calls: number) => Promise<number> {
	return new Function(
		"input",
		`return async function (tool, calls) {
			const start = Bun.nanoseconds();
			for (let i = 0; i < calls; i++) {
				await tool.execute("call-1", input);
			}
			return (Bun.nanoseconds() - start) / calls;
		};`,
	)(input);
}
const timers = new Map(rows.map(([name]) => [name, timer()]));

// Warm-up: the JIT compiles every path before anything is timed.
for (const [name, tool] of rows) await timers.get(name)!(tool, CALLS);

const samples = new Map(rows.map(([name]) => [name, [] as number[]]));
for (let round = 0; round < ROUNDS; round++) {
	for (const [name, tool] of rows) samples.get(name)!.push(await timers.get(name)!(tool, CALLS));
}

console.log(`# oh-my-pi ${version}, bun ${Bun.version}, ${ROUNDS} rounds of ${CALLS} calls`);
for (const [name, ns] of samples) {
	ns.sort((a, b) => a - b);
	const median = ns[Math.floor(ns.length / 2)];
	console.log(`${name} ${median.toFixed(1)} ${ns[0].toFixed(1)}`);
}
