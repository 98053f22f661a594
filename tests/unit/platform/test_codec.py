"""The payload codec (AES-256-GCM, key ids, rotation) and its key file; with the real pydantic converter."""

from __future__ import annotations

import base64
import json
import stat

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import DefaultFailureConverterWithEncodedAttributes

from core.codec import (
    ENCODING,
    KEY_ID_META,
    KEYS_FILE_ENV,
    CodecError,
    EncryptionCodec,
    Keyring,
    KeyringError,
    UnknownKeyError,
    data_converter,
)
from models.interview.entries import TranscriptEntry

SENTENCE = "My grandmother hid the ration cards inside the piano in 1944."


def _payload(text: str = SENTENCE) -> Payload:
    return pydantic_data_converter.payload_converter.to_payloads([text])[0]


async def test_round_trip_hides_the_text_and_names_the_key():
    ring = Keyring.generate()
    codec = EncryptionCodec(ring)
    original = _payload()
    [sealed] = await codec.encode([original])
    assert sealed.metadata["encoding"] == ENCODING
    assert sealed.metadata[KEY_ID_META] == ring.newest.id.encode()
    assert SENTENCE.encode() not in sealed.SerializeToString() and b"json/plain" not in sealed.data
    [again] = await codec.encode([original])
    assert again.data[:12] != sealed.data[:12]  # a fresh nonce per payload
    assert await codec.decode([sealed, again]) == [original, original]


async def test_rotation_old_keys_decrypt_the_newest_encrypts(tmp_path):
    path = tmp_path / "keys.json"
    old = Keyring.generate()
    old.save(path)
    [by_old] = await EncryptionCodec(Keyring.load(path)).encode([_payload()])

    rotated = Keyring.load(path).with_new_key()
    rotated.save(path)
    ring = Keyring.load(path)
    assert ring.ids == [old.newest.id, rotated.newest.id] and ring.newest.id != old.newest.id
    codec = EncryptionCodec(ring)
    [by_new] = await codec.encode([_payload()])
    assert by_new.metadata[KEY_ID_META] == ring.newest.id.encode()
    assert await codec.decode([by_old, by_new]) == [_payload(), _payload()]


async def test_unknown_key_id_is_a_clear_error():
    [sealed] = await EncryptionCodec(Keyring.generate()).encode([_payload()])
    other = Keyring.generate()
    key_id = sealed.metadata[KEY_ID_META].decode()
    with pytest.raises(UnknownKeyError, match=f"key id '{key_id}'.*not in the keyring") as err:
        await EncryptionCodec(other).decode([sealed])
    assert other.newest.id in str(err.value)  # it lists the ids it knows ...
    assert base64.b64encode(other.newest.secret).decode() not in str(err.value)  # ... never the keys


async def test_tampered_ciphertext_or_key_id_fails_authentication():
    ring = Keyring.generate()
    codec = EncryptionCodec(ring)
    [sealed] = await codec.encode([_payload()])
    flipped = bytearray(sealed.data)
    flipped[-1] ^= 0x01
    with pytest.raises(CodecError, match="failed authentication"):
        await codec.decode([Payload(metadata=dict(sealed.metadata), data=bytes(flipped))])
    with pytest.raises(CodecError, match="truncated"):
        await codec.decode([Payload(metadata=dict(sealed.metadata), data=sealed.data[:20])])
    # The key id is authenticated too: relabelling a payload with another known key fails.
    two = ring.with_new_key()
    relabelled = Payload(metadata={**sealed.metadata, KEY_ID_META: two.newest.id.encode()}, data=sealed.data)
    with pytest.raises(CodecError, match="failed authentication"):
        await EncryptionCodec(two).decode([relabelled])


async def test_unencrypted_payloads_pass_through_decode_unchanged():
    codec = EncryptionCodec(Keyring.generate())
    plain = [_payload(), Payload(metadata={"encoding": b"binary/null"}), Payload()]
    assert await codec.decode(plain) == plain


def test_key_file_is_private_and_its_format_is_checked(tmp_path):
    path = tmp_path / "conf" / "keys.json"
    ring = Keyring.generate()
    ring.save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    data = json.loads(path.read_text())
    assert data["version"] == 1 and [k["id"] for k in data["keys"]] == ring.ids
    assert len(base64.b64decode(data["keys"][0]["key"])) == 32
    assert "secret" not in repr(ring) and data["keys"][0]["key"] not in repr(ring) + repr(EncryptionCodec(ring))

    with pytest.raises(KeyringError, match="does not exist.*colloquy keys new"):
        Keyring.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    for text, message in [("{", "not JSON"), ('{"keys": []}', "has no keys"),
                          ('{"keys": [{"id": "a", "key": "!!"}]}', "not valid base64"),
                          ('{"keys": [{"id": "a", "key": "AAAA"}]}', "3 bytes; AES-256 needs 32")]:
        bad.write_text(text)
        with pytest.raises(KeyringError, match=message):
            Keyring.load(bad)
    key = base64.b64encode(bytes(32)).decode()
    bad.write_text(json.dumps({"keys": [{"id": "a", "key": key}, {"id": "a", "key": key}]}))
    with pytest.raises(KeyringError, match="duplicate key ids"):
        Keyring.load(bad)


async def test_one_setting_turns_it_on_for_the_data_converter(tmp_path, monkeypatch):
    monkeypatch.delenv(KEYS_FILE_ENV, raising=False)
    assert data_converter(pydantic_data_converter) is pydantic_data_converter  # off by default
    path = Keyring.generate().save(tmp_path / "keys.json")
    monkeypatch.setenv(KEYS_FILE_ENV, str(path))
    converter = data_converter(pydantic_data_converter)
    assert isinstance(converter.payload_codec, EncryptionCodec)
    assert isinstance(converter.failure_converter, DefaultFailureConverterWithEncodedAttributes)
    assert converter.payload_converter_class is pydantic_data_converter.payload_converter_class
    entry = TranscriptEntry(entry_id="a1", speaker="interviewee", text=SENTENCE)
    encoded = await converter.encode([entry])
    assert SENTENCE.encode() not in encoded[0].SerializeToString()
    assert await converter.decode(encoded, [TranscriptEntry]) == [entry]
    # pydantic models still come back as themselves, and plain payloads from before still decode
    assert await converter.decode(await pydantic_data_converter.encode([entry]), [TranscriptEntry]) == [entry]


def test_keys_commands_create_rotate_and_never_print_keys(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from client.cli import app

    monkeypatch.delenv(KEYS_FILE_ENV, raising=False)
    path = tmp_path / "private" / "keys.json"
    first = CliRunner().invoke(app, ["keys", "new", "--file", str(path)])
    assert first.exit_code == 0 and "created key" in first.output and f"{KEYS_FILE_ENV}={path}" in first.output
    second = CliRunner().invoke(app, ["keys", "new", "--file", str(path)])
    assert second.exit_code == 0 and "added key" in second.output and "2 key(s)" in second.output
    ring = Keyring.load(path)
    assert len(ring.keys) == 2 and stat.S_IMODE(path.stat().st_mode) == 0o600
    listed = CliRunner().invoke(app, ["keys", "list", "--file", str(path)])
    assert listed.exit_code == 0 and ring.ids[0] in listed.output and f"{ring.ids[1]}" in listed.output
    assert "newest" in listed.output.splitlines()[1]
    for result in (first, second, listed):
        assert not [k for k in ring.keys if base64.b64encode(k.secret).decode() in result.output]
    path.write_text("{")
    broken = CliRunner().invoke(app, ["keys", "new", "--file", str(path)])
    assert broken.exit_code == 2 and "not JSON" in broken.output


def test_the_embedded_server_points_its_web_ui_at_colloquy_serve_only_with_encryption(tmp_path, monkeypatch):
    from core.server import DevServer, dev_server_args

    monkeypatch.delenv(KEYS_FILE_ENV, raising=False)
    assert "--ui-codec-endpoint" not in dev_server_args(None)
    assert DevServer(tmp_path).codec_endpoint is None
    monkeypatch.setenv(KEYS_FILE_ENV, str(tmp_path / "keys.json"))
    monkeypatch.setenv("COLLOQUY_SERVE_PORT", "9411")
    server = DevServer(tmp_path)
    assert server.codec_endpoint == "http://127.0.0.1:9411/codec"
    args = dev_server_args(None, codec_endpoint=server.codec_endpoint)
    assert args[args.index("--ui-codec-endpoint") + 1] == "http://127.0.0.1:9411/codec"
    assert "--ui-codec-endpoint" not in dev_server_args(None, ui=False, codec_endpoint=server.codec_endpoint)
