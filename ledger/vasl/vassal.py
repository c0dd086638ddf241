"""VASSAL save and log files (.vsav, .vlog), read the way VASSAL reads them (vassalengine/vassal 3.2 to
3.8.0-beta1, vassal-app/src/main/java/VASSAL/):

- the file is a zip (tools/io/ZipWriter.java); its 'savedGame' entry (build/module/GameState.java
  SAVEFILE_ZIP_ENTRY) holds the game as one string of commands;
- that entry is obfuscated (tools/io/ObfuscatingOutputStream.java): the header '!VCSK', the key byte as two
  hex digits, then every byte XOR the key as two hex digits. DeobfuscatingInputStream.java reads upper- or
  lower-case digits and passes a file without the header through as plain text. '!VCSK' is the only header
  VASSAL has ever written (the older tools/Obfuscator.java, removed in 3.3, wrote the same);
- commands are joined by ESC (build/GameModule.java COMMAND_SEPARATOR = KeyEvent.VK_ESCAPE) with
  tools/SequenceEncoder.java's escaping, nested: a compound command's parts are encoded inside it;
- a log is the game's state ('begin_save' ... 'end_save') followed by each logged step, 'LOG\\t' + its
  command (build/module/BasicLogger.java); a chat message is 'CHAT' + its text (build/module/Chatter.java);
- 'savedata' and 'moduledata' hold the VASSAL version and the module's name and version
  (build/module/metadata/SaveMetaData.java).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from xml.etree import ElementTree

from ..errors import BadInput

HEADER = b"!VCSK"
ESC = "\x1b"
SAVED_GAME = "savedGame"
MAX_GAME = 256 * 1024 * 1024  # bytes of 'savedGame' (hex, twice the game): far above any real log


@dataclass(frozen=True)
class ChatMessage:
    number: int  # 1-based, among the chat messages of the file
    step: int  # the log step it was made in (VASSAL's 'Step forward' count), 0 in the saved state
    text: str


@dataclass(frozen=True)
class VassalGame:
    kind: str  # 'log' when it holds logged steps, else 'save'
    module: str = ""
    module_version: str = ""
    vassal_version: str = ""
    steps: int = 0
    messages: list[ChatMessage] = field(default_factory=list)


def is_zip(data: bytes) -> bool:
    return data[:4] in (b"PK\x03\x04", b"PK\x05\x06")


def deobfuscate(data: bytes) -> bytes:
    """DeobfuscatingInputStream: '!VCSK' + key + hex pairs, each XOR key; anything else unchanged."""
    if not data.startswith(HEADER):
        return data
    body = data[len(HEADER):]
    if len(body) % 2:
        raise BadInput("the game inside is cut short (an odd number of hex digits after '!VCSK')")
    try:
        raw = bytes.fromhex(body.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise BadInput("the game inside is not VASSAL's hex after '!VCSK'") from None
    if not raw:
        return b""
    key = raw[0]
    return raw[1:].translate(bytes(b ^ key for b in range(256)))


def obfuscate(plain: bytes, key: int) -> bytes:
    """ObfuscatingOutputStream: the header, the key, then each byte XOR the key, as lower-case hex."""
    return HEADER + bytes([key]).hex().encode() + plain.translate(bytes(b ^ key for b in range(256))).hex().encode()


def tokens(value: str, delim: str = ESC) -> list[str]:
    """All tokens of SequenceEncoder.Decoder: a delimiter after a backslash is part of the token, the empty
    string after a trailing delimiter is a last empty token, and single quotes around a token are removed."""
    out: list[str] = []
    start, stop = 0, len(value)
    while True:
        if start == stop:
            out.append("")
            return out
        buf: list[str] = []
        tok = None
        i = start
        while i < stop:
            if value[i] == delim:
                if i > 0 and value[i - 1] == "\\":
                    buf.append(value[start: i - 1])
                    start = i
                else:
                    if not "".join(buf):
                        tok = value[start:i]
                    else:
                        buf.append(value[start:i])
                    start = i + 1
                    break
            i += 1
        ended = start < i
        if ended:
            if not "".join(buf):
                tok = value[start:]
            else:
                buf.append(value[start:stop])
        text = tok if tok is not None else "".join(buf)
        out.append(text[1:-1] if len(text) > 1 and text[0] == "'" and text[-1] == "'" else text)
        if ended:
            return out


def encode(parts: list[str], delim: str = ESC) -> str:
    """SequenceEncoder.append for each part: a backslash before each delimiter, single quotes around a part that
    begins with a backslash or is already quoted."""
    out = []
    for part in parts:
        escaped = part.replace(delim, "\\" + delim)
        quoted = part and (part[0] == "\\" or (part[0] == "'" and part[-1] == "'"))
        out.append(f"'{escaped}'" if quoted else escaped)
    return delim.join(out)


def commands(text: str):
    """(step, command) for every single command in VASSAL's order (GameModule.decode splits a compound command
    into its parts; BasicLogger.decode opens 'LOG\\t'). The step counts the logged steps at the top level."""
    step = 0
    top = tokens(text)
    if len(top) == 1 and top[0] == text:
        top = [text]
    for part in top:
        if part.startswith("LOG\t"):
            step += 1
        stack = [part]
        while stack:
            command = stack.pop()
            if command.startswith("LOG\t"):
                stack.append(command[4:])
                continue
            parts = tokens(command)
            if len(parts) == 1 and parts[0] == command:
                yield step, command
            else:
                stack.extend(reversed(parts))


def _metadata(archive: zipfile.ZipFile, name: str) -> dict[str, str]:
    try:
        info = archive.getinfo(name)
        if info.file_size > 1024 * 1024:
            return {}
        root = ElementTree.fromstring(archive.read(name))
    except (KeyError, ElementTree.ParseError, zipfile.BadZipFile, OSError):
        return {}
    return {child.tag: (child.text or "").strip() for child in root}


def read_game(data: bytes) -> VassalGame:
    """The chat messages of a VASSAL save or log, in order, with the module and versions it names."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        info = archive.getinfo(SAVED_GAME)
    except (zipfile.BadZipFile, OSError):
        raise BadInput("a damaged zip: not a VASSAL save or log") from None
    except KeyError:
        raise BadInput("a zip without a 'savedGame' entry: not a VASSAL save or log") from None
    if info.file_size > MAX_GAME:
        raise BadInput(f"its game is {info.file_size // (1024 * 1024)} MB: too large for a VASSAL log")
    try:
        entry = archive.read(SAVED_GAME)
    except (zipfile.BadZipFile, OSError, RuntimeError) as e:
        raise BadInput(f"its 'savedGame' entry cannot be read ({e})") from None
    return read_saved_game(entry, _metadata(archive, "moduledata"), _metadata(archive, "savedata"))


def is_saved_game(data: bytes) -> bool:
    """A 'savedGame' entry taken out of its zip (e.g. `unzip -p game.vlog savedGame`)."""
    return data.startswith(HEADER) or data.startswith(b"begin_save")


def read_saved_game(entry: bytes, module: dict | None = None, saved: dict | None = None) -> VassalGame:
    module, saved = module or {}, saved or {}
    plain = deobfuscate(entry).decode("utf-8", errors="replace")
    if not plain.startswith("begin_save"):
        raise BadInput("its 'savedGame' entry is not a VASSAL game (no 'begin_save')")
    messages, steps = [], 0
    for step, command in commands(plain):
        steps = max(steps, step)
        if command.startswith("CHAT"):
            messages.append(ChatMessage(len(messages) + 1, step, command[4:]))
    return VassalGame(kind="log" if steps else "save", module=module.get("name", ""),
                      module_version=module.get("version", ""),
                      vassal_version=saved.get("VassalVersion", "") or module.get("VassalVersion", ""),
                      steps=steps, messages=messages)
