"""A corpus of credential kinds and near misses, for measuring secret detectors:
the secret gate's own rules and the detect-secrets library.

Every value is synthetic: built at import time from a seeded generator in the shape the
issuer documents (prefix, length, alphabet), so the file holds no key-shaped literal and
no real credential. Each :class:`Kind` is one credential kind in a realistic line (a
command, an env file line, a config snippet, prose) with the spans that must never be
shown; each :class:`NearMiss` is a line that holds something secret-shaped but public (a
digest, an id, a public key, an image) and must pass any detector unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
DJANGO_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"
"""The characters of Django's ``get_random_secret_key()`` (django/core/management/utils.py)."""


def fake(alphabet: str, length: int, seed: int) -> str:
    """A deterministic random string: the body of a made-up secret."""
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


def pem_lines(seed: int, lines: int = 6) -> tuple[str, ...]:
    """The base64 body lines of a made-up PEM block (64 characters each)."""
    return tuple(fake(B64, 64, seed + i) for i in range(lines))


def pem(label: str, body: tuple[str, ...]) -> str:
    joined = "\n".join(body)
    return f"-----BEGIN {label}-----\n{joined}\n-----END {label}-----"


PASSPHRASE_WORDS = (
    *("correct", "horse", "battery", "staple", "purple", "monkey", "dishwasher", "lantern"),
    *("orbit", "velvet", "canyon", "maple", "quartz", "tundra", "pepper", "harbor", "ribbon"),
    *("walnut", "glacier"),
)
"""Plain words for made-up passphrases (a passphrase is words, not a key-shaped string)."""


def passphrase(words: int, seed: int) -> str:
    """A deterministic passphrase of ``words`` distinct plain words."""
    return " ".join(random.Random(seed).sample(PASSPHRASE_WORDS, words))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@dataclass(frozen=True, slots=True)
class Kind:
    """One credential kind: ``text`` holds it as it appears in a transcript, ``secrets``
    are the spans that must never be shown (each at least 6 characters)."""

    name: str
    text: str
    secrets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NearMiss:
    """A line that looks secret-ish but is public; a detector must leave it unchanged."""

    name: str
    text: str


def _kinds() -> list[Kind]:
    aws_id = "AKIA" + fake(UPPER_ALNUM, 16, 101)
    aws_secret = fake(B64, 40, 102)
    ghp = "ghp_" + fake(ALNUM, 36, 103)
    github_pat = "github_pat_" + fake(ALNUM, 22, 104) + "_" + fake(ALNUM, 59, 105)
    gho = "gho_" + fake(ALNUM, 36, 106)
    glpat = "glpat-" + fake(URLSAFE, 20, 107)
    anthropic = "sk-ant-api03-" + fake(URLSAFE, 93, 108) + "AA"
    openai = "sk-proj-" + fake(URLSAFE, 40, 109) + "T3BlbkFJ" + fake(URLSAFE, 40, 110)
    slack_bot = "-".join(
        ["xoxb", fake(string.digits, 12, 111), fake(string.digits, 13, 112), fake(ALNUM, 24, 113)]
    )
    webhook = fake(ALNUM, 24, 114)
    webhook_url = (
        f"https://hooks.slack.com/services/T{fake(UPPER_ALNUM, 8, 115)}/"
        f"B{fake(UPPER_ALNUM, 10, 116)}/{webhook}"
    )
    google = "AIza" + fake(URLSAFE, 35, 117)
    stripe = "sk_live_" + fake(ALNUM, 24, 118)
    stripe_restricted = "rk_live_" + fake(ALNUM, 24, 119)
    sendgrid = "SG." + fake(URLSAFE, 22, 120) + "." + fake(URLSAFE, 43, 121)
    npm = "npm_" + fake(ALNUM, 36, 122)
    pypi = "pypi-AgEIcHlwaS5vcmc" + fake(URLSAFE, 70, 123)
    huggingface = "hf_" + fake(string.ascii_letters, 34, 124)
    claims = {"sub": fake(LOWER_ALNUM, 12, 125), "iat": 1_790_000_000, "role": "admin"}
    jwt = ".".join(
        [
            _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()),
            _b64url(json.dumps(claims).encode()),
            fake(URLSAFE, 43, 127),
        ]
    )
    bearer = fake(ALNUM, 40, 128)
    basic = base64.b64encode(b"deploy:" + fake(ALNUM, 16, 129).encode()).decode()
    db_password = "S3cr3t-" + fake(ALNUM, 10, 130)
    env_password = "hunter2-" + fake(ALNUM, 8, 131)
    netrc_password = "Zq8-" + fake(ALNUM, 12, 132)
    mysql_password = "Db!" + fake(ALNUM, 10, 133)
    curl_password = "Adm1n-" + fake(ALNUM, 8, 134)
    docker_password = "Dock3r-" + fake(ALNUM, 10, 135)
    sshpass_password = "Ssh-" + fake(ALNUM, 10, 136)
    api_key = fake(ALNUM, 32, 137)
    client_secret = fake(URLSAFE, 40, 138)
    rsa_body = pem_lines(139)
    openssh_body = pem_lines(150)
    account_key = fake(B64, 86, 160) + "=="
    twilio = fake(HEX, 32, 161)
    shopify = "shpat_" + fake(HEX, 32, 162)
    digitalocean = "dop_v1_" + fake(HEX, 64, 163)
    age = "AGE-SECRET-KEY-1" + fake(BECH32, 58, 164)
    gcp_oauth = "GOCSPX-" + fake(URLSAFE, 28, 165)
    telegram = fake(string.digits, 10, 166) + ":AA" + fake(URLSAFE, 33, 167)
    square = "sq0csp-" + fake(URLSAFE, 43, 168)
    databricks = "dapi" + fake(HEX, 32, 169)
    k8s_password = base64.b64encode(fake(ALNUM, 18, 170).encode()).decode()
    json_password = "Pa55-" + fake(ALNUM, 12, 171)
    prose_account = fake(ALNUM, 12, 301)
    prose_as = fake(ALNUM, 8, 302) + "!" + fake(ALNUM, 6, 303)
    prose_next = fake(string.ascii_lowercase, 6, 304) + "2" + fake(string.ascii_lowercase, 6, 305)
    vault = "hvs." + fake(ALNUM, 90, 306)
    docker_pat = "dckr_pat_" + fake(URLSAFE, 27, 307)
    xai = "xai-" + fake(ALNUM, 80, 308)
    groq = "gsk_" + fake(ALNUM, 52, 309)
    discord = fake(ALNUM, 24, 310) + "." + fake(ALNUM, 6, 311) + "." + fake(URLSAFE, 38, 312)
    registry_auth = base64.b64encode(b"ci-bot:" + fake(ALNUM, 20, 313).encode()).decode()
    identity_token = fake(URLSAFE, 48, 314)
    docker_config_json = base64.b64encode(
        json.dumps({"auths": {"ghcr.io": {"auth": registry_auth}}}, indent=2).encode()
    ).decode()
    django_key = "k#8!@" + fake(DJANGO_ALPHABET, 45, 315)
    env_symbols = "Zt9!&" + fake(ALNUM + "!@#%^&*", 20, 316)
    snowflake = fake("123456789", 1, 317) + fake(string.digits, 17, 318)
    discord_bot = (
        _b64url(snowflake.encode()) + "." + fake(URLSAFE, 6, 319) + "." + fake(URLSAFE, 38, 320)
    )
    discord_hook = fake(URLSAFE, 68, 321)
    twilio_key_sid = "SK" + fake(HEX, 32, 322)
    twilio_key_secret = fake(ALNUM, 32, 323)
    twilio_account = "AC" + fake(HEX, 32, 324)
    prose_passphrase = passphrase(4, 325)
    colon_passphrase = passphrase(4, 326)
    account_colon = "Tr0" + fake(ALNUM, 6, 327) + "&3"
    it_is = fake(string.ascii_lowercase, 6, 328) + "2" + fake(ALNUM, 3, 329)
    redis_password = "R3d!" + fake(ALNUM, 10, 330)
    prose_api_key = fake(HEX, 31, 331) + "f"
    prose_jwt_secret = "jwt-" + fake(URLSAFE, 14, 332) + "9"
    prose_secret = fake(ALNUM, 10, 333) + "-" + fake(ALNUM, 6, 334) + "7"
    set_secret_key = "k#8!" + fake(DJANGO_ALPHABET, 30, 335) + "q"
    flag_token = "7" + fake(ALNUM, 18, 336)
    flag_api_key = fake(HEX, 23, 337) + "a"
    flag_client_secret = "Qw3~" + fake(URLSAFE, 12, 338) + ".x"
    return [
        Kind("aws-access-key-id", f"export AWS_ACCESS_KEY_ID={aws_id}", (aws_id,)),
        Kind(
            "aws-secret-access-key",
            f"aws configure set aws_secret_access_key {aws_secret}",
            (aws_secret,),
        ),
        Kind("github-classic-pat", f"git remote set-url origin with token {ghp}", (ghp,)),
        Kind("github-fine-grained-pat", f"GH_TOKEN={github_pat} gh pr list", (github_pat,)),
        Kind("github-oauth-token", f'{{"access_token": "{gho}", "scope": "repo"}}', (gho,)),
        Kind("gitlab-pat", f"export GITLAB_TOKEN={glpat}", (glpat,)),
        Kind("anthropic-api-key", f"ANTHROPIC_API_KEY={anthropic}", (anthropic,)),
        Kind("openai-api-key", f"client = OpenAI(api_key='{openai}')", (openai,)),
        Kind("slack-bot-token", f"SLACK_BOT_TOKEN={slack_bot}", (slack_bot,)),
        Kind("slack-webhook-url", f"curl -X POST -d @msg.json {webhook_url}", (webhook,)),
        Kind("google-api-key", f'const firebase = {{ apiKey: "{google}" }};', (google,)),
        Kind("stripe-secret-key", f"stripe.api_key = '{stripe}'", (stripe,)),
        Kind("stripe-restricted-key", f"STRIPE_KEY={stripe_restricted}", (stripe_restricted,)),
        Kind("sendgrid-api-key", f"sg = SendGridAPIClient('{sendgrid}')", (sendgrid,)),
        Kind("npm-token", f"//registry.npmjs.org/:_authToken={npm}", (npm,)),
        Kind("pypi-token", f"twine upload -u __token__ -p {pypi} dist/*", (pypi,)),
        Kind("huggingface-token", f"huggingface-cli login --token {huggingface}", (huggingface,)),
        Kind("jwt", f"the cookie session={jwt}; Path=/", (jwt,)),
        Kind("bearer-header", f'curl -H "Authorization: Bearer {bearer}" api/v1', (bearer,)),
        Kind("basic-auth-header", f"Authorization: Basic {basic}", (basic,)),
        Kind(
            "url-credentials",
            f"DATABASE_URL=postgres://app:{db_password}@db.internal:5432/app",
            (db_password,),
        ),
        Kind("password-assignment", f"DB_PASSWORD={env_password}", (env_password,)),
        Kind(
            "password-in-prose",
            "my password is Hunter-42-Correct-Horse, please log in for me",
            ("Hunter-42-Correct-Horse",),
        ),
        Kind(
            "password-in-prose-colon",
            "the root password: Tr0ub4dor&3x (change it tomorrow)",
            ("Tr0ub4dor&3x",),
        ),
        Kind(
            "netrc-line",
            f"machine api.example.com login deploy password {netrc_password}",
            (netrc_password,),
        ),
        Kind(
            "netrc-file",
            f"machine git.example.org\n  login ci-bot\n  password {netrc_password}x\n",
            (netrc_password + "x",),
        ),
        Kind("mysql-password-flag", f"mysql -u root -p{mysql_password} shop", (mysql_password,)),
        Kind(
            "curl-user-password",
            f"curl -u admin:{curl_password} https://ci.example.com/api",
            (curl_password,),
        ),
        Kind(
            "docker-login-password",
            f"docker login -u bot -p {docker_password} registry.example.com",
            (docker_password,),
        ),
        Kind(
            "sshpass-password",
            f"sshpass -p '{sshpass_password}' ssh deploy@web1",
            (sshpass_password,),
        ),
        Kind("api-key-in-json", f'{{"service": "maps", "api_key": "{api_key}"}}', (api_key,)),
        Kind(
            "client-secret-in-yaml", f"oauth:\n  client_secret: {client_secret}\n", (client_secret,)
        ),
        Kind(
            "rsa-private-key",
            f"the deploy key is\n{pem('RSA PRIVATE KEY', rsa_body)}\nuse it for CI",
            rsa_body,
        ),
        Kind(
            "openssh-private-key",
            f"cat ~/.ssh/id_ed25519 gave:\n{pem('OPENSSH PRIVATE KEY', openssh_body)}\n",
            openssh_body,
        ),
        Kind(
            "azure-storage-connection-string",
            "AZURE_STORAGE=DefaultEndpointsProtocol=https;AccountName=acme;"
            f"AccountKey={account_key};EndpointSuffix=core.windows.net",
            (account_key,),
        ),
        Kind("twilio-auth-token", f"TWILIO_AUTH_TOKEN={twilio}", (twilio,)),
        Kind("shopify-access-token", f"X-Shopify-Access-Token: {shopify}", (shopify,)),
        Kind("digitalocean-token", f"doctl auth init -t {digitalocean}", (digitalocean,)),
        Kind("age-secret-key", f"# created: 2026-01-01\n{age}\n", (age,)),
        Kind("gcp-oauth-client-secret", f'"client_secret": "{gcp_oauth}"', (gcp_oauth,)),
        Kind("telegram-bot-token", f"bot = telebot.TeleBot('{telegram}')", (telegram,)),
        Kind("square-oauth-secret", f"SQUARE_SECRET={square}", (square,)),
        Kind("databricks-token", f"databricks configure --token {databricks}", (databricks,)),
        Kind(
            "kubernetes-secret-data",
            f"kind: Secret\ndata:\n  password: {k8s_password}\n",
            (k8s_password,),
        ),
        Kind(
            "password-in-json",
            f'{{"user": "admin", "password": "{json_password}"}}',
            (json_password,),
        ),
        # kinds that leaked from main @ 1bab70c, added with the rules that catch them
        Kind(
            "password-for-the-account-prose",
            f"The password for the admin account is '{prose_account}'. Keep it safe.",
            (prose_account,),
        ),
        Kind("password-as-the-password", f"use {prose_as} as the password", (prose_as,)),
        Kind(
            "password-without-verb", f"deploy to staging with password {prose_next}", (prose_next,)
        ),
        Kind("vault-token", f"export VAULT_TOKEN={vault}", (vault,)),
        Kind(
            "docker-hub-pat",
            f"docker login -u acme --password-stdin <<< {docker_pat}",
            (docker_pat,),
        ),
        Kind("xai-api-key", f"XAI_KEY {xai}", (xai,)),
        Kind("groq-api-key", f"client = Groq(api_key='{groq}')", (groq,)),
        Kind("dotted-bot-token", f"DISCORD_TOKEN={discord}", (discord,)),
        # registry logins, symbol-rich values and vendor formats the generic rules miss
        Kind(
            "docker-config-auth",
            json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": registry_auth}}}),
            (registry_auth,),
        ),
        Kind(
            "docker-identity-token",
            f'{{"auths": {{"myregistry.azurecr.io": {{"identitytoken": "{identity_token}"}}}}}}',
            (identity_token,),
        ),
        Kind(
            "kubernetes-dockerconfigjson",
            "type: kubernetes.io/dockerconfigjson\ndata:\n"
            f"  .dockerconfigjson: {docker_config_json}\n",
            (docker_config_json,),
        ),
        Kind("dotenv-secret-key-symbols", f"SECRET_KEY={django_key}", (django_key,)),
        Kind("dotenv-token-symbols", f"export API_TOKEN={env_symbols}", (env_symbols,)),
        Kind("django-settings-secret-key", f"SECRET_KEY = '{django_key}'", (django_key,)),
        Kind(
            "discord-bot-token",
            f'curl -H "Authorization: Bot {discord_bot}" https://discord.com/api/v10/users/@me',
            (discord_bot,),
        ),
        Kind(
            "discord-webhook-url",
            f"curl -d @msg.json https://discord.com/api/webhooks/{snowflake}/{discord_hook}",
            (discord_hook,),
        ),
        Kind(
            "twilio-api-key",
            f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/{twilio_account}"
            f"/Messages.json -u {twilio_key_sid}:{twilio_key_secret}",
            (twilio_key_sid, twilio_key_secret, twilio_account),
        ),
        Kind(
            "twilio-client-pair",
            f"client = Client('{twilio_key_sid}', '{twilio_key_secret}', '{twilio_account}')",
            (twilio_key_sid, twilio_key_secret, twilio_account),
        ),
        # secrets given in prose, to the end of their clause, and on command lines
        Kind(
            "passphrase-in-prose",
            f"my password is {prose_passphrase}",
            (prose_passphrase,),
        ),
        Kind("passphrase-after-colon", f"password: {colon_passphrase}", (colon_passphrase,)),
        Kind(
            "password-for-the-account-colon",
            f"the password for the admin account is: {account_colon}",
            (account_colon,),
        ),
        Kind("password-it-is", f"never print the password, it is {it_is}", (it_is,)),
        Kind(
            "redis-cli-password", f"redis-cli -h cache -a {redis_password} ping", (redis_password,)
        ),
        Kind("api-key-in-prose", f"my api key is {prose_api_key}", (prose_api_key,)),
        Kind("jwt-secret-in-prose", f"jwt secret: {prose_jwt_secret}", (prose_jwt_secret,)),
        Kind("the-secret-is-prose", f"The secret is: {prose_secret}", (prose_secret,)),
        Kind(
            "set-secret-key-to-prose",
            f"set the DJANGO_SECRET_KEY to {set_secret_key}",
            (set_secret_key,),
        ),
        Kind("token-flag", f"mytool deploy --token {flag_token} --yes", (flag_token,)),
        Kind("api-key-flag", f"mytool --api-key {flag_api_key} --region eu", (flag_api_key,)),
        Kind(
            "client-secret-flag",
            f"az login --service-principal --client-secret '{flag_client_secret}'",
            (flag_client_secret,),
        ),
    ]


def _near_misses() -> list[NearMiss]:
    digest = hashlib.sha256(b"driftguard").hexdigest()
    png = base64.b64encode(bytes(random.Random(201).randrange(256) for _ in range(90))).decode()
    integrity = base64.b64encode(hashlib.sha512(b"left-pad").digest()).decode()
    return [
        NearMiss("uuid", "session 123e4567-e89b-42d3-a456-426614174000 resumed"),
        NearMiss("git-commit-sha", "git checkout 4b5a9b8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a"),
        NearMiss("git-short-sha", "reverted 4b5a9b8 and cherry-picked 9f3c2e1"),
        NearMiss("sha256-digest", f"sha256sum dist/app.tar.gz: {digest}"),
        NearMiss("docker-image-digest", f"image: registry.example.com/api@sha256:{digest}"),
        NearMiss("npm-integrity", f'"integrity": "sha512-{integrity}"'),
        NearMiss(
            "ssh-ed25519-public-key",
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + fake(B64, 43, 202) + " dev@laptop",
        ),
        NearMiss(
            "ssh-rsa-public-key",
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + fake(B64, 300, 203) + " dev@laptop",
        ),
        NearMiss("pem-public-key", pem("PUBLIC KEY", pem_lines(204, 4))),
        NearMiss("pem-certificate", pem("CERTIFICATE", pem_lines(210, 8))),
        NearMiss("base64-png-image", f'<img src="data:image/png;base64,iVBORw0KGgo{png}">'),
        NearMiss("stripe-publishable-key", "Stripe('pk_live_" + fake(ALNUM, 24, 220) + "')"),
        NearMiss("aws-arn", "arn:aws:iam::123456789012:role/deploy-role"),
        NearMiss("go-sum-line", "golang.org/x/net v0.21.0 h1:" + fake(B64, 43, 221) + "="),
        NearMiss("public-ip-address", "resolved api.example.com to 93.184.216.34 in 12 ms"),
        NearMiss("email-address", "assign the review to dev.lead@example.com"),
        NearMiss("git-ssh-remote", "git@github.com:acme/importer.git"),
        NearMiss("password-talk", "The password is stored in the vault; the password was reset."),
        NearMiss("password-required", "Error: password is required (min length 12)."),
        NearMiss("password-type-hint", "def login(user: str, password: str) -> Token:"),
        NearMiss("password-from-env", 'password = os.environ["DB_PASSWORD"]'),
        NearMiss("password-placeholder", "export PGPASSWORD=$DB_PASS && psql -h db"),
        NearMiss("token-count", "max_tokens=4096 and the token budget is 128000"),
        NearMiss("minified-identifier", "e.exports=function(t){return t.replace(/\\s+/g,'-')}"),
        NearMiss(
            "long-camel-case-identifier",
            "AbstractSingletonProxyFactoryBeanConfigurationRegistryPostProcessor",
        ),
        NearMiss("semver-and-date", "released v2.14.3 on 2026-11-30T10:00:00Z"),
        NearMiss("netrc-in-prose", "On this machine, login with SSO; password resets go to IT."),
        NearMiss("scikit-learn", "pip install scikit-learn sk-learn-compat"),
        NearMiss("file-path", "/home/dev/.cache/pip/wheels/4b/5a/9b8c0d1e2f3a4b5c6d7e8f9a"),
        NearMiss("url-without-credentials", "https://api.example.com/v1/users?page=2&per_page=50"),
        NearMiss("ci-cache-key", f"cache-key: node-modules-{digest}"),
        NearMiss("http-etag", f'ETag: "{digest[:32]}"'),
        NearMiss("tokenizer-hash", f"tokenizer_hash={digest}"),
        NearMiss("password-reset-talk", "the password reset flow sends a link; see password field"),
        NearMiss("password-policy-talk", "use the default as the password policy for now"),
        NearMiss("dotted-version", "api_version: 2026.11.30.1 and module a.b.c.d loaded"),
        NearMiss("registry-auth-talk", '{"auth": "basic", "auths": {}} and oauth: none'),
        NearMiss("docker-creds-store", '{"credsStore": "desktop", "auths": {"ghcr.io": {}}}'),
        NearMiss("secret-key-file", "SECRET_KEY_FILE=/run/secrets/django SORT_KEY=created_at"),
        NearMiss("secret-from-env", 'SECRET_KEY = os.environ["SECRET_KEY"]; token = get_token()'),
        NearMiss("secret-placeholder", "API_TOKEN=${{ secrets.API_TOKEN }} and SECRET_KEY=$KEY"),
        NearMiss("token-settings", "MAX_TOKEN=4096 TOKEN_TTL=3600 ACCESS_KEY_ID_FILE=keys.txt"),
        NearMiss("type-annotations", "    api_key: str\n    token: Optional[str] = None"),
        NearMiss("discord-snowflake", f"channel {fake(string.digits, 18, 222)} in the guild"),
        NearMiss(
            "dotted-triple",
            "M" + fake(ALNUM, 23, 223) + "." + fake(ALNUM, 6, 224) + "." + fake(ALNUM, 27, 225),
        ),
        NearMiss("twilio-call-sid", f"call CA{fake(HEX, 32, 226)}, message SM{fake(HEX, 32, 227)}"),
        # prose about a password, a secret, a token or a key, and flags that name one
        NearMiss("password-in-vault", "the password is stored in Vault"),
        NearMiss("password-is-required", "the password is required"),
        NearMiss("password-case-sensitive", "the password is case-sensitive"),
        NearMiss("password-optional-annotation", "password: Optional[str] = None"),
        NearMiss("password-form-prompt", "Password: Enter your password"),
        NearMiss("password-see-below", "password: see below"),
        NearMiss("password-confidential", "the password is confidential"),
        NearMiss("password-hashed", "the password is hashed with bcrypt before it is stored"),
        NearMiss("secret-to-test-early", "the secret is to test early"),
        NearMiss("key-to-cache", "the key is to cache it"),
        NearMiss("secret-in-a-sentence", "The secret to good tests is isolation."),
        NearMiss("our-secret-is", "our secret is simplicity"),
        NearMiss("token-expired", "the token is expired"),
        NearMiss("token-in-a-sentence", "Each token is counted once; the next token is predicted."),
        NearMiss("api-key-in-env-file", "the api key is in the .env file"),
        NearMiss("api-key-not-valid", "Your API key is not valid. Please pass a valid API key."),
        NearMiss("secret-key-is-used", "Wait, `salted_hmac` is where the secret key is used."),
        NearMiss("token-which-is-variable", "at least one token - which is _currToken"),
        NearMiss("set-timeout-to", "set the timeout to 30"),
        NearMiss("set-secret-key-to-words", "set SECRET_KEY to a random value"),
        NearMiss("token-from-call", "token = get_token()"),
        NearMiss("token-file-flag", "--token-file tok.txt"),
        NearMiss("token-flag-variable", "gh api --token $GITHUB_TOKEN /user"),
        NearMiss("token-flag-in-prose", "pass the token via --token"),
        NearMiss("token-flag-placeholder", "--api-key YOUR_API_KEY --token <token>"),
        NearMiss("docker-build-secret", "docker build --secret id=npm,src=.npmrc ."),
        NearMiss("podman-run-secret", "podman run --secret db_password_v2 app"),
    ]


KINDS: tuple[Kind, ...] = tuple(_kinds())
NEAR_MISSES: tuple[NearMiss, ...] = tuple(_near_misses())
