"""A key written in an api_base's URL is still the one that reaches the provider: userinfo as
HTTP Basic authentication (litellm's client refuses a URL with credentials next to the SDK's
own header), the query string as written."""

from __future__ import annotations

import base64

from judgegrid.calls.providers.gateway import PLACEHOLDER_KEY, call_kwargs, url_credentials
from judgegrid.core.options import ModelOptions

KEY = "sk-proj-Abcdefghijklmnop0123456789"


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_userinfo_becomes_basic_authentication():
    base, headers = url_credentials(f"https://me:{KEY}@gw.example.com:8443/v1?key={KEY}")
    assert base == f"https://gw.example.com:8443/v1?key={KEY}"  # the query stays as written
    assert headers == {"Authorization": basic("me", KEY)}


def test_percent_encoded_userinfo_is_decoded_and_a_bare_user_is_kept():
    assert url_credentials("http://a%40b:p%3Aw@h/v1")[1] == {"Authorization": basic("a@b", "p:w")}
    assert url_credentials(f"http://{KEY}@h/v1")[1] == {"Authorization": basic(KEY, "")}


def test_a_url_without_userinfo_is_left_alone():
    url = f"https://h/v1?key={KEY}"
    assert url_credentials(url) == (url, {})
    kwargs = call_kwargs("openai/x", ModelOptions(api_base=url))
    assert kwargs == {"api_key": PLACEHOLDER_KEY, "max_retries": 0}


def test_the_call_gets_the_credentials_and_keeps_the_users_headers():
    options = ModelOptions(
        api_base=f"https://me:{KEY}@h/v1", extra={"extra_headers": {"X-Team": "rag"}}
    )
    kwargs = call_kwargs("openai/x", options)
    assert kwargs["api_base"] == "https://h/v1"
    assert kwargs["extra_headers"] == {"X-Team": "rag", "Authorization": basic("me", KEY)}
    request = {"model": "openai/x", "api_base": options.api_base, **options.extra}
    sent = request | kwargs  # what the judge and the embedder hand litellm
    assert sent["api_base"] == "https://h/v1" and "Authorization" in sent["extra_headers"]
