import { consoleHook } from './console-hook';
import { demoHook } from './demo-hook';
import { idpHook } from './idp-hook';
import type { LocalHook } from './local-hook';
import { messageImagesHook } from './message-images-hook';
import { openApiHook } from './openapi-hook';
import { warehouseHook } from './warehouse-hook';

/**
 * The hooks the local runtime runs, in this order (their interface: ./local-hook.ts). The demo
 * content comes after the warehouse's billing seed (its fired alert reads the billing data).
 */
export const localHooks: LocalHook[] = [
  openApiHook,
  warehouseHook,
  consoleHook,
  messageImagesHook,
  idpHook,
  demoHook,
];
