/**
 * The records the WASM engine wrote (src/engine/recordJson.ts) as strings: read out of its memory
 * in the form it wrote them (ASCII or Latin-1 bytes, UTF-16, or UTF-8 kept as bytes), with an
 * ending (a metered answer's meta) written over the record's closing brace first, so that the text
 * comes out as one flat string. Node's Buffer decodes; elsewhere TextDecoder.
 */

/** Where the engine writes its records: the output of assembly/jsonWriter.ts, in the form finish() reports. */
export interface RecordOutput {
  readonly exports: { readonly memory: WebAssembly.Memory };
  /** the one-byte forms' output */
  readonly output: number;
  /** the UTF-16 form's output */
  readonly utf16Output: number;
}

/** A record written, from finish()'s result, with `ending` in place of its closing brace. */
export type RecordReader = (result: number, ending: string) => string;

/** The part of Node's Buffer the readers use. */
type NodeBufferView = Uint8Array & {
  toString(encoding: 'latin1' | 'utf16le', start: number, end: number): string;
  write(text: string, offset: number, encoding: 'latin1' | 'utf16le'): number;
};

/** Record forms of assembly/jsonWriter.ts finish(): length + form × 2^20. */
const FORM_SHIFT = 20;
const LENGTH_MASK = (1 << FORM_SHIFT) - 1;
const UTF16_FORM = 2;
/** The longest ending placed in WASM memory: well within the output's slack (recordJson.ts) in either form. */
const ENDING_LIMIT = 1024;

/**
 * Turns a record the engine wrote (finish()'s result) into a string: Buffer's slices under Node,
 * else TextDecoder. A non-empty `ending` (ASCII) takes the place of the record's closing brace. It
 * is written after the record in WASM memory, so that the text comes out as one flat string:
 * joined to the record as strings, it would be copied again when the body is measured and sent.
 */
export function recordReader(area: RecordOutput): RecordReader {
  const { output, utf16Output } = area;
  const view = nodeView(area);
  if (view) {
    return (result, ending) => {
      const length = result & LENGTH_MASK;
      if (result >>> FORM_SHIFT === UTF16_FORM) {
        const end = utf16Output + 2 * length;
        if (ending === '') return view.toString('utf16le', utf16Output, end);
        if (!placeable(view, end - 2, 2, ending)) return withEnding(view.toString('utf16le', utf16Output, end), ending);
        return view.toString('utf16le', utf16Output, end - 2 + view.write(ending, end - 2, 'utf16le'));
      }
      return latin1Record(view, output, output + length, ending);
    };
  }
  const ascii = new TextDecoder();
  const utf16 = new TextDecoder('utf-16le');
  const bytes = new Uint8Array(area.exports.memory.buffer);
  return (result, ending) => {
    const length = result & LENGTH_MASK;
    const wide = result >>> FORM_SHIFT === UTF16_FORM;
    const unit = wide ? 2 : 1;
    const start = wide ? utf16Output : output;
    let end = start + unit * length;
    const decoder = wide ? utf16 : ascii;
    if (ending === '' || !placeable(bytes, end - unit, unit, ending)) return withEnding(decoder.decode(bytes.subarray(start, end)), ending);
    end -= unit;
    for (let i = 0; i < ending.length; i++, end += unit) {
      bytes[end] = ending.charCodeAt(i);
      if (wide) bytes[end + 1] = 0;
    }
    return decoder.decode(bytes.subarray(start, end));
  };
}

/**
 * Turns a record the engine kept as UTF-8 (written at a level plus UTF8_RECORD) into its bytes as a
 * Latin-1 string, one character per byte, `ending` as in recordReader; null where there is no Node
 * Buffer. V8 makes and copies such a string as fast as any, and a socket writes it as Latin-1 as
 * it is: no conversion to Latin-1 or UTF-16 here, no UTF-8 encoding there, no measuring for
 * Content-Length (its length is its byte length).
 */
export function recordBytes(area: RecordOutput): RecordReader | null {
  const view = nodeView(area);
  if (!view) return null;
  const { output } = area;
  return (result, ending) => latin1Record(view, output, output + (result & LENGTH_MASK), ending);
}

/** A Node Buffer over the area's WASM memory, or null where the runtime has no Buffer. */
function nodeView(area: RecordOutput): NodeBufferView | null {
  const NodeBuffer = (globalThis as unknown as { Buffer?: { from(buffer: ArrayBuffer): NodeBufferView } }).Buffer;
  return NodeBuffer ? NodeBuffer.from(area.exports.memory.buffer) : null;
}

/** The bytes of a record from `start` to `end` as a Latin-1 string, `ending` in place of its closing brace. */
function latin1Record(view: NodeBufferView, start: number, end: number, ending: string): string {
  if (ending === '') return view.toString('latin1', start, end);
  if (!placeable(view, end - 1, 1, ending)) return withEnding(view.toString('latin1', start, end), ending);
  return view.toString('latin1', start, end - 1 + view.write(ending, end - 1, 'latin1'));
}

/**
 * Whether `ending` can be written over the record's last character, at `at` in units of `unit`
 * bytes: short enough for the slack. That character must be the closing brace: an ending is for a
 * whole record, never for one the engine stopped early.
 */
function placeable(bytes: Uint8Array, at: number, unit: 1 | 2, ending: string): boolean {
  if (bytes[at] !== 0x7d || (unit === 2 && bytes[at + 1] !== 0))
    throw new Error('an ending for a record that does not end in its closing brace');
  return ending.length <= ENDING_LIMIT;
}

/**
 * `json` (an object's text) with `ending` in place of its closing brace: how a record gets more
 * members after its own (a metered answer's meta). An empty ending leaves it as it is.
 */
export function withEnding(json: string, ending: string): string {
  return ending === '' ? json : json.slice(0, -1) + ending;
}

/** Whether the runtime turns Latin-1 bytes into a string as they are (TextDecoder's "latin1" is windows-1252). */
export const READS_LATIN1 = (globalThis as { Buffer?: unknown }).Buffer !== undefined;
