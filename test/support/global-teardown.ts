export default async function globalTeardown(): Promise<void> {
  await globalThis.__LOCAL_STACK__?.stop();
}
