"""The one redaction: URLs' credentials masked, key-shaped tokens shortened, and the one rule of
what is key-shaped (``looks_like_key``), which refuses names and masks text alike."""

from __future__ import annotations

import io
import sys

import pytest

from judgegrid.cli.common import echo_unredacted, redacted_terminal
from judgegrid.core.redaction import (
    MASK,
    from_environment,
    has_credentials,
    is_masked_url,
    is_secret_header,
    key_shaped_name,
    looks_like_key,
    redact_stored,
    redact_text,
    redact_url,
)

KEY = "sk-proj-Abcdefghijklmnop0123456789"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"https://user:{KEY}@gw.example.com/v1", "https://***@gw.example.com/v1"),
        (f"https://{KEY}@gw.example.com", "https://***@gw.example.com"),
        (
            f"http://u:p@127.0.0.1:8000/v1?key={KEY}&api-version=2024-06-01",
            "http://***@127.0.0.1:8000/v1?key=***&api-version=2024-06-01",
        ),
        (
            "https://h/v1?api_key=a&apikey=b&token=c&sig=d",
            "https://h/v1?api_key=***&apikey=***&token=***&sig=***",
        ),
        (
            "https://h/x?signature=a&secret=b&password=c&code=d",
            "https://h/x?signature=***&secret=***&password=***&code=***",
        ),
        (
            "https://h/x?access_token=a&subscription-key=b&X-Goog-Api-Key=c",
            "https://h/x?access_token=***&subscription-key=***&X-Goog-Api-Key=***",
        ),
        ("https://h/cb#access_token=abc&state=1", "https://h/cb#access_token=***&state=1"),
        ("https://h/v1?key=a/chat/completions", "https://h/v1?key=***"),  # the SDK's joined URL
        ("https://h/v1?model=x&keyword=y", "https://h/v1?model=x&keyword=y"),  # nothing secret
        ("https://h:8443/v1/models", "https://h:8443/v1/models"),
    ],
)
def test_a_url_keeps_where_it_goes_and_loses_its_credentials(url, shown):
    assert redact_url(url) == shown
    assert redact_text(f"POST {url} failed") == f"POST {shown} failed"


def test_urls_are_found_inside_any_text():
    text = f"error at 'http://u:{KEY}@h/v1?token=abc' (and \"https://h/?sig=zz\")"
    out = redact_text(text)
    assert KEY not in out and "abc" not in out and "zz" not in out
    assert "'http://***@h/v1?token=***'" in out and '"https://h/?sig=***"' in out


@pytest.mark.parametrize(
    "name",
    [
        KEY,
        "0123456789abcdef0123456789abcdef",  # a 32-hex key (Azure's shape)
        "AIzaSyA-1234567890abcdefghijk",
        "AKIAIOSFODNN7EXAMPLE",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
        "sk-PLANTED-judgegrid-0123456789",
        "judge http://u:pw@h/v1",  # a URL with credentials in it
        f"my-{KEY}-judge",
    ],
)
def test_key_shaped_names(name):
    assert looks_like_key(name)
    assert key_shaped_name(name, "a label is shown in every report") == (
        "looks like an API key; a label is shown in every report — use a name"
    )


@pytest.mark.parametrize(
    "name",
    [
        "gpt-4o-mini",
        "claude-3-5-sonnet-20241022-strict-json",  # long, but words and numbers
        "hf-mistral-7b-instruct-v0.2",  # a provider's prefix, but words and numbers
        "sk-learn-judge",
        "123e4567-e89b-12d3-a456-426614174000",  # a UUID
        "0123456789abcdef0123456789abcdef01234567",  # a commit's digest
        "anthropic/claude-3-5-sonnet-20241022",
        "Ann Smith",
        "https://gw.example.com/v1",  # a URL without credentials
    ],
)
def test_names_that_are_names(name):
    assert not looks_like_key(name)
    assert key_shaped_name(name, "x") is None
    assert redact_text(name) == name


def test_what_is_stored_keeps_the_data_and_masks_the_secrets():
    request = {
        "model": "openai/x",
        "api_base": f"https://u:{KEY}@h/v1?key={KEY}",
        "messages": [{"role": "user", "content": "a sample quoting a commit 0123abcd" * 3}],
        "extra_headers": {"api-key": KEY},
        "n": 3,
    }
    stored = redact_stored(request)
    assert stored["api_base"] == "https://***@h/v1?key=***"
    assert stored["messages"] == request["messages"]  # the user's text is kept as it is
    assert stored["extra_headers"]["api-key"] == "sk-…6789"
    assert stored["n"] == 3
    assert KEY not in repr(stored)


@pytest.mark.parametrize(
    ("name", "value", "stored"),
    [
        ("Authorization", f"Bearer {KEY}", "Bea…6789"),  # a credential header, by its name
        ("Proxy-Authorization", "Basic dXNlcjpwdw==", "Bas…dw=="),
        ("x-api-key", "short1", "…"),  # short: nothing of it shown
        ("Ocp-Apim-Subscription-Key", "abc", "…"),
        ("X-Trace", f"trace {KEY}", "trace sk-…6789"),  # any header, by a key-shaped value
        ("X-Title", "my app 2024", "my app 2024"),  # the rest as written
        ("Authorization", "Bearer ${GATEWAY_KEY}", "Bearer ${GATEWAY_KEY}"),  # a variable's name
    ],
)
def test_headers_are_masked_where_they_are_written(name, value, stored):
    written = redact_stored({"extra": {"extra_headers": {name: value}}})
    assert written == {"extra": {"extra_headers": {name: stored}}}
    assert redact_stored({"extra_headers": {name: value}}) == {"extra_headers": {name: stored}}


def test_a_header_from_the_environment_is_a_placeholder_and_a_scheme_at_most():
    assert from_environment("${K}") and from_environment("Bearer ${K}")
    assert not from_environment("Bearer abc${K}") and not from_environment("Bearer x ${K}")
    assert not from_environment(f"Bearer {KEY}") and not from_environment("$K")
    assert is_secret_header("AUTHORIZATION") and is_secret_header("x-goog-api-key")
    assert not is_secret_header("X-Title") and not is_secret_header("Content-Type")


def test_credentials_in_a_url_are_known():
    assert has_credentials(f"https://u:{KEY}@h/v1") and has_credentials("https://h/v1?key=k")
    assert not has_credentials("https://h/v1?api-version=1")


def test_a_masked_url_is_known_as_one():
    assert is_masked_url(redact_url(f"https://u:{KEY}@h/v1"))
    assert is_masked_url(redact_url(f"https://h/v1?key={KEY}"))
    assert not is_masked_url("https://h/v1")
    assert not is_masked_url(f"https://u:{KEY}@h/v1")
    assert MASK == "***"


def test_the_terminal_masks_every_write_but_the_one_meant_to_show():
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        with redacted_terminal():
            print(f"calling https://u:{KEY}@h/v1?key={KEY}")
            sys.stderr.write(f"warning: {KEY}\n")
            assert sys.stdout.isatty() is False  # everything else is the stream's
            echo_unredacted("open http://127.0.0.1:1/?token=PageToken0123456789abcdefghijkl")
        print(KEY)  # the block is over: the streams are the caller's again
    finally:
        sys.stdout, sys.stderr = saved
    assert out.getvalue().splitlines() == [
        "calling https://***@h/v1?key=***",
        "open http://127.0.0.1:1/?token=PageToken0123456789abcdefghijkl",
        KEY,
    ]
    assert err.getvalue() == "warning: sk-…6789\n"
