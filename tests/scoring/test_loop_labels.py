"""A loop's label (its description and its short status-line form) is cut only after the
whole command passed the secret gate: a secret the cut would have shortened is still
found, and the cut never splits a redaction marker."""

from __future__ import annotations

import random
import string

from driftguard.adapters._common import make_tool_call
from driftguard.model import ParsedMessage
from driftguard.scoring.loops import ActionLoop, action_loop, describe_loop, short_loop
from driftguard.secrets import MARKER_PATTERN


def fake(alphabet: str, length: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


TWILIO_SID = "SK" + fake("0123456789abcdef", 32, 1)
SYMBOLIC = "Zt9!&" + fake(string.ascii_letters + string.digits + "!@#%^*", 20, 2)


def looping(command: str, times: int = 3) -> ActionLoop:
    call = make_tool_call("Bash", {"command": command})
    messages = [
        message
        for _ in range(times)
        for message in (
            ParsedMessage(role="assistant", content="Again.", tool_calls=(call,)),
            ParsedMessage(role="tool", content="Exit code 1", is_error=True),
        )
    ]
    loop = action_loop(messages)
    assert loop is not None
    return loop


def test_a_secret_across_the_descriptions_cut_is_redacted_and_its_marker_kept_whole() -> None:
    # the SID starts 40 characters in and ends past the 60-character cut
    command = f"curl -sf https://api.twilio.com/x -u {TWILIO_SID}:x -d To=+15550100"
    description = describe_loop(looping(command))
    assert TWILIO_SID[:10] not in description
    label = description.split("`")[1]
    [marker] = MARKER_PATTERN.findall(label)
    assert marker.startswith("[REDACTED:twilio-key:")
    assert label.endswith(marker + "…")
    assert description.endswith("failed 3 times in a row")


def test_the_short_label_leaves_out_a_marker_it_cannot_fit_rather_than_cut_it() -> None:
    label = short_loop(looping(f"curl -sf -u {TWILIO_SID}:x https://api.twilio.com/x"))
    assert label == "curl -sf -u… ×3"
    assert "[REDACTED" not in label
    assert TWILIO_SID[:4] not in label


def test_a_label_that_fits_is_not_cut() -> None:
    assert short_loop(looping("npm test")) == "npm test ×3"
    assert describe_loop(looping("npm test")) == "`npm test` failed 3 times in a row"


def test_a_secret_only_a_line_anchored_rule_sees_is_gated_before_blanks_collapse() -> None:
    # a YAML line is a secret's assignment only at the start of its line: collapsing the
    # heredoc to one line first would hide it from the gate
    command = f"cat > deploy.yml <<'EOF'\nservice: api\napi_token: {SYMBOLIC}\nEOF"
    loop = looping(command)
    for label in (describe_loop(loop), short_loop(loop)):
        assert SYMBOLIC not in label
        assert SYMBOLIC[:5] not in label
    assert "api_token: [REDACTED:secret-assignment:" in describe_loop(loop)
    assert "\n" not in describe_loop(loop)


def test_a_command_that_writes_a_dotenv_file_is_withheld_from_the_label() -> None:
    command = f"printf 'API_TOKEN={SYMBOLIC}\\nSECRET_KEY={SYMBOLIC}x\\n' > .env\nSECRET_KEY=1\n"
    command += f"DB_PASSWORD={SYMBOLIC}"
    loop = looping(command)
    assert describe_loop(loop) == "`[withheld]` failed 3 times in a row"
    assert short_loop(loop) == "[withheld] ×3"
