/**
 * AES-256-GCM for secrets at rest (view keys, webhook secrets). Layout:
 * version(1) ‖ iv(12) ‖ ciphertext ‖ tag(16). The row id is bound in as
 * associated data, so a ciphertext copied onto another row does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = 1;

export class SecretBox {
  private readonly key: Buffer;
  constructor(masterKeyHex: string) {
    const hex = masterKeyHex.replace(/^0x/, "");
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error("master key must be 32 bytes of hex");
    this.key = Buffer.from(hex, "hex");
  }

  seal(plaintext: string, associatedData: string): Buffer {
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", this.key, iv);
    c.setAAD(Buffer.from(associatedData, "utf8"));
    const body = Buffer.concat([c.update(plaintext, "utf8"), c.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, body, c.getAuthTag()]);
  }

  open(sealed: Uint8Array, associatedData: string): string {
    const buf = Buffer.from(sealed);
    if (buf.length < 29 || buf[0] !== VERSION) throw new Error("sealed secret has an unknown layout");
    const d = createDecipheriv("aes-256-gcm", this.key, buf.subarray(1, 13));
    d.setAAD(Buffer.from(associatedData, "utf8"));
    d.setAuthTag(buf.subarray(buf.length - 16));
    return Buffer.concat([d.update(buf.subarray(13, buf.length - 16)), d.final()]).toString("utf8");
  }
}
