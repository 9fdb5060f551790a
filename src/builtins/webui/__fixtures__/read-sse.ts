/** A test SSE client over fetch streaming. */
/** Reads SSE frames from a fetch response until `until` returns true for the collected events. */
export async function readSse(res: Response, until: (evs: { id?: string; event: string; payload: Record<string, unknown> }[]) => boolean) {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  const evs: { id?: string; event: string; payload: Record<string, unknown> }[] = [];
  while (!until(evs)) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (data) {
        const j = JSON.parse(data) as { event: string; payload: Record<string, unknown> };
        evs.push({ id, event: j.event, payload: j.payload });
      }
    }
  }
  await reader.cancel();
  return evs;
}

