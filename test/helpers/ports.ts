/**
 * A free loopback port for a process that will listen on it later.
 *
 * It is drawn below the kernel's ephemeral range (32768–60999 on Linux), then
 * checked by binding it once. A port the OS picked for a socket bound to port
 * 0 would be an ephemeral one: between its release and the child's listen, the
 * same port can go to any socket that binds port 0 or connects out (the
 * devnet's simulators in an `npm start` do both), and the child then fails
 * with EADDRINUSE.
 */
import net from "node:net";
import { randomInt } from "node:crypto";

const LOW = 20_000;
const HIGH = 32_000;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = randomInt(LOW, HIGH);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port found in ${LOW}–${HIGH}`);
}
