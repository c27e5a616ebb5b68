// Compile-time only: the parts of the extension API that the bridge declares (../pi/hooks.ts)
// are what pi 0.73.1 and oh-my-pi 18.2.3 declare. What each agent hands the bridge (its API
// object, a handler's context, a command's context) must be assignable to the bridge's
// interfaces, handlers and callbacks included. The two modules are the agents' own
// `types.d.ts` of their extensions, mapped by a tsconfig that tests/tests/e2e/scenarios/
// bridge_ts.rs writes where the e2e suite installed them (never imported by the bridge).

import type * as Omp from "omp-extension-types";
import type * as Pi from "pi-extension-types";

import type * as Bridge from "../pi/hooks.js";

export const piApi = (x: Pi.ExtensionAPI): Bridge.ExtensionAPI => x;
export const piContext = (x: Pi.ExtensionContext): Bridge.ExtensionContext => x;
export const piCommandContext = (x: Pi.ExtensionCommandContext): Bridge.ExtensionCommandContext => x;
export const ompApi = (x: Omp.ExtensionAPI): Bridge.ExtensionAPI => x;
export const ompContext = (x: Omp.ExtensionContext): Bridge.ExtensionContext => x;
export const ompCommandContext = (x: Omp.ExtensionCommandContext): Bridge.ExtensionCommandContext => x;
