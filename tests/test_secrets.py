"""The secret gate: each rule's positives and near misses, markers and
digests, whole-excerpt drops, idempotence, and a property over random prose.

Every secret here is synthetic: built at run time from a seeded generator, so the file
holds no key-shaped literal.
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.secrets import (
    RULE_IDS,
    GatedText,
    Redaction,
    gate,
    is_high_entropy,
    marker,
    shannon_entropy,
)

ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"


def fake(alphabet: str, length: int, seed: int) -> str:
    """A deterministic random string (stands in for a real secret's body)."""
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


def sha8(span: str) -> str:
    return hashlib.sha256(span.encode("utf-8")).hexdigest()[:8]


def pem(label: str, seed: int, lines: int = 4) -> str:
    body = "\n".join(fake(B64, 64, seed + i) for i in range(lines))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


AWS_KEY = "AKIA" + fake(UPPER_ALNUM, 16, 1)
AWS_TEMP_KEY = "ASIA" + fake(UPPER_ALNUM, 16, 2)
GITHUB_PAT = "ghp_" + fake(ALNUM, 36, 3)
GITHUB_APP = "ghs_" + fake(ALNUM, 36, 4)
GITHUB_FINE = "github_pat_" + fake(ALNUM, 22, 5) + "_" + fake(ALNUM, 59, 6)
ANTHROPIC = "sk-ant-api03-" + fake(URLSAFE, 93, 7) + "AA"
OPENAI_PROJECT = "sk-proj-" + fake(URLSAFE, 40, 8) + "T3BlbkFJ" + fake(URLSAFE, 40, 9)
OPENAI_LEGACY = "sk-" + fake(ALNUM, 20, 10) + "T3BlbkFJ" + fake(ALNUM, 20, 11)
SLACK_BOT = "xoxb-" + fake(string.digits, 12, 12) + "-" + fake(string.digits, 13, 13) + "-"
SLACK_BOT += fake(ALNUM, 24, 14)
GOOGLE = "AIza" + fake(URLSAFE, 35, 15)
STRIPE_LIVE = "sk_live_" + fake(ALNUM, 24, 25)
STRIPE_TEST = "sk_test_" + fake(ALNUM, 99, 26)
STRIPE_RESTRICTED = "rk_live_" + fake(ALNUM, 16, 27)  # the shortest body the rule takes
STRIPE_RESTRICTED_TEST = "rk_test_" + fake(ALNUM, 32, 28)
JWT = "eyJ" + fake(URLSAFE, 30, 16) + ".eyJ" + fake(URLSAFE, 60, 17) + "." + fake(URLSAFE, 43, 18)
BEARER = fake(ALNUM, 40, 19)
URL_PASSWORD = fake(ALNUM, 12, 20) + "!%"
ENTROPY_VALUE = fake(B64, 40, 21)
ENTROPY_SHORT = fake(B64, 32, 22)  # high-entropy, but not AWS's 40 characters
AWS_SECRET = fake(B64, 40, 23)
AWS_SECRET_LONG = fake(B64, 42, 24)  # AWS's 40 characters and a stray tail
SENDGRID = "SG." + fake(URLSAFE, 22, 31) + "." + fake(URLSAFE, 43, 32)
SLACK_HOOK_IDS = "T" + fake(UPPER_ALNUM, 8, 33) + "/B" + fake(UPPER_ALNUM, 10, 34)
SLACK_HOOK = fake(ALNUM, 24, 35)
NPM = "npm_" + fake(ALNUM, 36, 36)
PYPI = "pypi-AgEIcHlwaS5vcmc" + fake(URLSAFE, 60, 37)
DIGITALOCEAN = "dop_v1_" + fake("0123456789abcdef", 64, 38)
DATABRICKS = "dapi" + fake("0123456789abcdef", 32, 39)
AGE_KEY = "AGE-SECRET-KEY-1" + fake("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, 41)
TELEGRAM = fake(string.digits, 10, 42) + ":AA" + fake(URLSAFE, 33, 43)
HEX = "0123456789abcdef"
REGISTRY_AUTH = base64.b64encode(b"deploy:" + fake(ALNUM, 16, 92).encode()).decode()
IDENTITY_TOKEN = fake(URLSAFE, 40, 93)
DOCKER_CONFIG_JSON = base64.b64encode(
    b'{\n  "auths": {\n    "ghcr.io": {"auth": "' + REGISTRY_AUTH.encode() + b'"}\n  }\n}'
).decode()
DISCORD_ID = fake("123456789", 1, 94) + fake(string.digits, 17, 95)  # an 18-digit snowflake
DISCORD_BOT = (
    base64.urlsafe_b64encode(DISCORD_ID.encode()).decode().rstrip("=")
    + "."
    + fake(URLSAFE, 6, 96)
    + "."
    + fake(URLSAFE, 27, 97)
)
DISCORD_HOOK = fake(URLSAFE, 68, 98)
TWILIO_SK = "SK" + fake(HEX, 32, 99)
TWILIO_AC = "AC" + fake(HEX, 32, 100)
TWILIO_SECRET = fake(ALNUM, 32, 101)
DJANGO_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"
DJANGO_KEY = "k#8" + fake(DJANGO_ALPHABET, 47, 102)  # get_random_secret_key()'s alphabet
SYMBOLIC = "Xy7#pq!2Lm@9z^"
HEX_KEY = "3f9a" + fake(HEX, 28, 103)  # an API key of hex digits, given in prose
RSA_KEY = pem("RSA PRIVATE KEY", 30)
OPENSSH_KEY = pem("OPENSSH PRIVATE KEY", 40)

# (rule, text, the secret span the rule replaces)
POSITIVES: list[tuple[str, str, str]] = [
    ("private-key", f"here is the key:\n{RSA_KEY}\nplease load it", RSA_KEY),
    ("private-key", f"deploy key follows {OPENSSH_KEY} end", OPENSSH_KEY),
    ("aws-access-key", f"the bucket is read with {AWS_KEY} today", AWS_KEY),
    ("aws-access-key", f"AWS_ACCESS_KEY_ID={AWS_TEMP_KEY}", AWS_TEMP_KEY),
    ("github-token", f"git push with {GITHUB_PAT}", GITHUB_PAT),
    ("github-token", f'"token": "{GITHUB_APP}"', GITHUB_APP),
    ("github-token", f"export GH_TOKEN={GITHUB_FINE}", GITHUB_FINE),
    ("anthropic-key", f"ANTHROPIC_API_KEY={ANTHROPIC}", ANTHROPIC),
    ("openai-key", f"client = OpenAI(api_key='{OPENAI_PROJECT}')", OPENAI_PROJECT),
    ("openai-key", f"old key {OPENAI_LEGACY} was revoked", OPENAI_LEGACY),
    ("slack-token", f"post with {SLACK_BOT} to #general", SLACK_BOT),
    ("google-api-key", f"maps key {GOOGLE} in the config", GOOGLE),
    ("stripe-key", f"charge the card with {STRIPE_LIVE} from the vault", STRIPE_LIVE),
    ("stripe-key", f"stripe.api_key = '{STRIPE_TEST}'", STRIPE_TEST),
    ("stripe-key", f"STRIPE_SECRET_KEY={STRIPE_RESTRICTED}", STRIPE_RESTRICTED),
    ("stripe-key", f'{{"key": "{STRIPE_RESTRICTED_TEST}"}}', STRIPE_RESTRICTED_TEST),
    ("stripe-key", f"curl https://api.stripe.com/v1/charges -u {STRIPE_LIVE}:", STRIPE_LIVE),
    ("jwt", f"session cookie {JWT} expired", JWT),
    ("jwt", f"Authorization: Bearer {JWT}", JWT),
    ("bearer-token", f"curl -H 'Authorization: Bearer {BEARER}' https://api", BEARER),
    ("bearer-token", f'{{"authorization": "Basic {BEARER}=="}}', BEARER + "=="),
    (
        "url-credentials",
        f"DATABASE_URL is postgres://app:{URL_PASSWORD}@db.internal:5432/app",
        URL_PASSWORD,
    ),
    ("url-credentials", f"redis://:{URL_PASSWORD}@cache:6379/0", URL_PASSWORD),
    ("url-credentials", "git remote https://ci:pa@ss@git.internal/r.git", "pa@ss"),
    ("aws-secret-key", f"aws_secret_access_key = {ENTROPY_VALUE}", ENTROPY_VALUE),
    ("aws-secret-key", f"Deploy with AWS_SECRET_ACCESS_KEY {AWS_SECRET_LONG}", AWS_SECRET_LONG),
    ("aws-secret-key", f"aws configure set aws_secret_access_key {AWS_SECRET}", AWS_SECRET),
    ("aws-secret-key", f'{{"AccessKeyId": "x", "SecretAccessKey": "{AWS_SECRET}"}}', AWS_SECRET),
    ("aws-secret-key", f"export AWS_SECRET_ACCESS_KEY='{AWS_SECRET}'", AWS_SECRET),
    ("aws-secret-key", f"secret_access_key:\t{AWS_SECRET}", AWS_SECRET),
    ("entropy-assignment", f'{{"client_secret": "{ENTROPY_VALUE}"}}', ENTROPY_VALUE),
    ("entropy-assignment", f"db_password: {ENTROPY_VALUE}", ENTROPY_VALUE),
    ("entropy-assignment", f"deploy --api-key {ENTROPY_VALUE} --yes", ENTROPY_VALUE),
    # Prose gives a secret away as surely as code: a high-entropy run after the word.
    ("entropy-assignment", f"the secret {ENTROPY_VALUE} was mentioned", ENTROPY_VALUE),
    ("entropy-assignment", f"my API token is {ENTROPY_SHORT}, keep it", ENTROPY_SHORT),
    ("entropy-assignment", f"use token {ENTROPY_SHORT} for the deploy", ENTROPY_SHORT),
    ("entropy-assignment", f"gh auth --token '{ENTROPY_VALUE}'", ENTROPY_VALUE),
    ("entropy-assignment", f"mysql -u root --password {ENTROPY_VALUE}", ENTROPY_VALUE),
    ("entropy-assignment", f"export GITHUB_TOKEN  {ENTROPY_VALUE}", ENTROPY_VALUE),
    (
        "entropy-assignment",
        f"aws configure set aws_secret_access_key {ENTROPY_SHORT}",
        ENTROPY_SHORT,
    ),
    ("entropy-assignment", f"set clientSecret '{ENTROPY_SHORT}' then restart", ENTROPY_SHORT),
    ("entropy-assignment", f"SLACK_SIGNING_SECRET\t{ENTROPY_SHORT}", ENTROPY_SHORT),
    ("password", "deploy --password=hunter2hunter2 --yes", "hunter2hunter2"),
    ("password", "PGPASSWORD=hunter2 psql -h db -U app", "hunter2"),
    ("password", "password = 'correct horse battery staple'", "correct horse battery staple"),
    ("password", '{"user": "app", "password": "hunter2"}', "hunter2"),
    ("password", 'log: {\\"password\\":\\"hunter2\\"}', "hunter2"),
    ("password", "db_passwd: s3cret!", "s3cret!"),
    ("password", "mysql --password hunter2 app", "hunter2"),
    ("password", "vault login --pass 'two words'", "two words"),
    ("password", "export DB_PASS=hunter2", "hunter2"),
    ("password", "wget --http-password=hunter2 https://files.internal/a.tgz", "hunter2"),
    ("password", "openssl rsa -in k.pem -passin pass:hunter2", "hunter2"),
    ("password", "Server=db;User Id=app;Password=hunter2;", "hunter2"),
    ("password", "login?user=app&password=hunter2&next=/", "hunter2"),
    ("password", 'psql "host=db user=app password=hunter2 dbname=app"', "hunter2"),
    ("password", "docker run -e MYSQL_ROOT_PASSWORD=hunter2 mysql:8", "hunter2"),
    ("password", "/home/dev/notes/PGPASSWORD=hunter2.md", "hunter2.md"),
    ("sendgrid-key", f"sg = SendGridAPIClient('{SENDGRID}')", SENDGRID),
    (
        "slack-webhook",
        f"POST https://hooks.slack.com/services/{SLACK_HOOK_IDS}/{SLACK_HOOK}",
        SLACK_HOOK,
    ),
    ("service-token", f"//registry.npmjs.org/:_authToken={NPM}", NPM),
    ("service-token", f"twine upload -p {PYPI} dist/*", PYPI),
    ("service-token", f"doctl auth init -t {DIGITALOCEAN}", DIGITALOCEAN),
    ("service-token", f"databricks configure --token {DATABRICKS}", DATABRICKS),
    ("service-token", f"# public key: age1x\n{AGE_KEY}\n", AGE_KEY),
    ("service-token", f"TeleBot('{TELEGRAM}')", TELEGRAM),
    (
        "password-prose",
        "my password is Hunter-42-Correct-Horse, please log in",
        "Hunter-42-Correct-Horse",
    ),
    ("password-prose", "the password for staging was tr0ub4dor.", "tr0ub4dor"),
    ("password-prose", 'The wifi password is "blue sky forty two".', "blue sky forty two"),
    ("password-prose", "set the passphrase to CorrectHorse and save", "CorrectHorse"),
    # a passphrase of plain words is taken to the end of its clause
    (
        "password-prose",
        "my password is correct horse battery staple",
        "correct horse battery staple",
    ),
    ("password-prose", "password: correct horse battery staple", "correct horse battery staple"),
    (
        "password-prose",
        "The wifi passcode is purple monkey dishwasher, ask me again",
        "purple monkey dishwasher",
    ),
    ("password-prose", "the password for the admin account is: Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("password-prose", "never print the password, it is hunter2x9", "hunter2x9"),
    ("password-prose", "don't log the password \u2014 it's S3cure!pw", "S3cure!pw"),
    # one plain word completing "password is …" is the password, as it is after "as the"
    ("password-prose", "my password is sunshine", "sunshine"),
    ("password-prose", "the prod password is correcthorsebattery.", "correcthorsebattery"),
    ("password-prose", "use correcthorsebattery as the password", "correcthorsebattery"),
    ("password-prose", "the wifi password is changeme and the ssid is home", "changeme"),
    ("password-prose", "pw: Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("password-prose", "ssh in with pw is letmein, then sudo", "letmein"),
    ("secret-prose", "set DB_PASS to correcthorsebattery", "correcthorsebattery"),
    ("netrc-password", "machine api.example.com login deploy password Zq8netrcPw", "Zq8netrcPw"),
    ("netrc-password", "machine git.example.org\n  login ci\n  password s3cr3t\n", "s3cr3t"),
    ("netrc-password", "default login anonymous password guest@", "guest@"),
    ("cli-password", "mysql -u root -pMyS3cretPass!", "MyS3cretPass!"),
    ("cli-password", "mysqldump -h db -uroot -p'two words' app > dump.sql", "two words"),
    ("cli-password", "docker exec db mariadb -uroot -phunter2 -e 'select 1'", "hunter2"),
    ("cli-password", "/usr/bin/mysql -hdb -phunter2", "hunter2"),
    ("cli-password", "docker login -u me -p hunter2 registry.example", "hunter2"),
    ("cli-password", 'podman login -p "s3cr3t pw" quay.io', "s3cr3t pw"),
    ("cli-password", "sshpass -p hunter2 ssh deploy@host", "hunter2"),
    ("cli-password", "curl -u admin:hunter2 https://api.internal/v1", "hunter2"),
    ("cli-password", "curl -s --user admin:hunter2 https://api.internal/v1", "hunter2"),
    ("cli-password", "curl --user=admin:hunter2 https://api.internal/v1", "hunter2"),
    ("cli-password", 'curl -u "admin:two words" https://api.internal', "two words"),
    ("cli-password", "wget -q -u ci:hunter2 https://files.internal/a.tgz", "hunter2"),
    ("cli-password", "redis-cli -h cache -p 6379 -a s3cr3tpw ping", "s3cr3tpw"),
    ("cli-password", "redis-cli -a 'two words' --no-auth-warning info", "two words"),
    ("secret-prose", f"my api key is {HEX_KEY}", HEX_KEY),
    ("secret-prose", "jwt secret: s0me-l0ng-jwt-s1gning-v4lue", "s0me-l0ng-jwt-s1gning-v4lue"),
    ("secret-prose", "The secret is: b4nana-Phone-77. Keep it.", "b4nana-Phone-77"),
    ("secret-prose", "our staging token is tok_9x8y7z6w5v for now", "tok_9x8y7z6w5v"),
    ("secret-prose", "the bot token, it is 12345:abcDEF", "12345:abcDEF"),
    ("secret-prose", "set the DJANGO_SECRET_KEY to k#8!@xz7-q9w(e)r", "k#8!@xz7-q9w(e)r"),
    ("secret-prose", "set DJANGO_SECRET_KEY to 'k#8!@xz7-q9w(e)r)'", "k#8!@xz7-q9w(e)r)"),
    ("secret-prose", "change DB_PASSWORD to Winter2024x and redeploy", "Winter2024x"),
    ("cli-secret", "vercel deploy --token 9fXk2LmPq7Rs --prod", "9fXk2LmPq7Rs"),
    ("cli-secret", "mytool --api-key 9f8e7d6c5b4a --region eu", "9f8e7d6c5b4a"),
    ("cli-secret", "az login --service-principal --client-secret 'Qw3~rty.Uio8'", "Qw3~rty.Uio8"),
    ("cli-secret", "gpg --batch --passphrase S3cr3tPhrase -d notes.gpg", "S3cr3tPhrase"),
    (
        "registry-auth",
        f'{{"auths": {{"ghcr.io": {{"auth": "{REGISTRY_AUTH}"}}}}}}',
        REGISTRY_AUTH,
    ),
    ("registry-auth", f'log: {{\\"auth\\":\\"{REGISTRY_AUTH}\\"}}', REGISTRY_AUTH),
    ("registry-auth", f"    auth: {REGISTRY_AUTH}", REGISTRY_AUTH),
    ("registry-auth", f'"identitytoken": "{IDENTITY_TOKEN}"', IDENTITY_TOKEN),
    ("registry-auth", f"data:\n  .dockerconfigjson: {DOCKER_CONFIG_JSON}\n", DOCKER_CONFIG_JSON),
    ("discord-token", f'client.run("{DISCORD_BOT}")', DISCORD_BOT),
    ("discord-token", f"curl -H 'Authorization: Bot {DISCORD_BOT}' https://x", DISCORD_BOT),
    (
        "discord-token",
        f"POST https://discord.com/api/webhooks/{DISCORD_ID}/{DISCORD_HOOK}",
        DISCORD_HOOK,
    ),
    ("twilio-key", f"TWILIO_API_KEY={TWILIO_SK}", TWILIO_SK),
    ("twilio-key", f"GET /2010-04-01/Accounts/{TWILIO_AC}/Calls.json", TWILIO_AC),
    ("bearer-token", f"curl -H 'Authorization: Token {BEARER}' https://api", BEARER),
    ("secret-assignment", f"SECRET_KEY={DJANGO_KEY}", DJANGO_KEY),
    ("secret-assignment", f"export DJANGO_SECRET_KEY='{DJANGO_KEY}'", DJANGO_KEY),
    ("secret-assignment", f"SECRET_KEY = '{DJANGO_KEY}'", DJANGO_KEY),
    ("secret-assignment", f'{{"client_secret": "{SYMBOLIC}"}}', SYMBOLIC),
    ("secret-assignment", f"oauth:\n  api_token: {SYMBOLIC}\n", SYMBOLIC),
    ("secret-assignment", f"deploy --api-key={SYMBOLIC} --yes", SYMBOLIC),
    ("secret-assignment", f"GET /v1/items?page=2&access_token={SYMBOLIC}&x=1", SYMBOLIC),
    ("secret-assignment", f"JWT_SECRET=${SYMBOLIC}", f"${SYMBOLIC}"),
]

SHA256_OF_EMPTY = hashlib.sha256(b"").hexdigest()
GIT_COMMIT = "4b5a9b8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a"
UUID = "123e4567-e89b-42d3-a456-426614174000"
SSH_PUBLIC = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + fake(B64, 43, 50) + " dev@laptop"
SSH_PUBLIC_RSA = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + fake(B64, 300, 51) + " dev@laptop"
PNG_PREFIX = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"

# (rule it nearly matches, text that must pass unchanged)
NEAR_MISSES: list[tuple[str, str]] = [
    ("sendgrid-key", "SG.example is a placeholder; SG." + fake(URLSAFE, 22, 80) + ".short"),
    ("slack-webhook", "see https://hooks.slack.com/services/ for the docs"),
    ("slack-webhook", "https://api.slack.com/messaging/webhooks#posting_with_webhooks"),
    ("service-token", "npm_config_cache=/tmp/npm and hf_hub_download(repo)"),
    ("service-token", "pip install pypi-simple; the port is 8080:8080 in compose"),
    ("service-token", "timestamps 1700000000:1700000099 in the log"),
    ("password-prose", "The password is stored in the vault; the password was reset."),
    ("password-prose", "Error: password is required. Password: ******"),
    ("password-prose", "set the password to something strong; password is: <your password>"),
    ("password-prose", "password = os.environ['DB_PASSWORD']; password: str"),
    ("password-prose", "the password for $USER is in ~/.pgpass"),
    ("password-prose", "the password is stored in Vault; the password is required"),
    ("password-prose", "the password is case-sensitive and the password is not set"),
    ("password-prose", "the password is hashed with bcrypt; the password is too short"),
    ("password-prose", "The password is sent over HTTPS and never logged."),
    ("password-prose", "password: Optional[str] = None"),
    ("password-prose", "Password: Enter your password"),
    ("password-prose", "password: see below; password: min 8 chars; Password: (hidden)"),
    ("password-prose", "the password is confidential, the passcode is correct"),
    ("password-prose", "one token - which is _currToken; the password, which is hashed"),
    ("password-prose", "the password is everywhere in the logs; the password is expiring"),
    ("password-prose", "the password is there. the password is visible; the password is weak"),
    ("password-prose", "the password is sunshine for now? no: the password reset"),
    ("password-prose", "if pw is not None: pw is None; the password is important"),
    ("password-prose", "the password is elsewhere, the password is encrypted"),
    ("cli-password", "redis-cli -h cache -a $REDIS_PASSWORD ping"),
    ("cli-password", "redis-cli --askpass -h cache ping; redis-cli -a"),
    ("secret-prose", "the secret is to test early; the key is to cache it"),
    ("secret-prose", "the token is expired and the api key is in the .env file"),
    ("secret-prose", "The secret to good tests is isolation. Each token is counted once."),
    ("secret-prose", "Your API key is not valid. The access token is short-lived."),
    ("secret-prose", "the secret key is used; the token is accessToken; our secret is simplicity"),
    ("secret-prose", "my api key is $OPENAI_API_KEY; jwt secret: ${JWT_SECRET}"),
    ("secret-prose", "set the timeout to 30 and set SECRET_KEY to a random value"),
    ("secret-prose", "set the token to expire in 1h; set the MAX_TOKENS to 4096"),
    ("secret-prose", "The api key for OpenAI is OPENAI_API_KEY; the token is self.token"),
    ("cli-secret", "gh auth --token-file tok.txt; mytool --token $GITHUB_TOKEN"),
    ("cli-secret", "docker build --secret id=npm,src=.npmrc . && podman run --secret db1 app"),
    ("cli-secret", "pass the token via --token to the CLI; --api-key YOUR_API_KEY"),
    ("cli-secret", "--token <token> --client-secret CLIENT_SECRET --token ~/.config/token"),
    ("cli-secret", "--api-key-file key.txt --max-tokens 4096 --secret-name prod-db"),
    ("netrc-password", "On this machine, login with SSO; password resets go to IT."),
    ("netrc-password", "machine learning login page: password policy explained"),
    ("netrc-password", "machine api.example.com login deploy password $NETRC_PASSWORD"),
    ("private-key", pem("PUBLIC KEY", 60)),
    ("private-key", pem("CERTIFICATE", 61)),
    ("aws-access-key", "AKIA is the prefix of an access key id; AKIA1234 is too short"),
    ("aws-access-key", f"the role AROA{fake(UPPER_ALNUM, 16, 62)} is an id, not a key"),
    ("github-token", "ghp_short and ghx_" + fake(ALNUM, 36, 63)),
    ("github-token", f"commit {GIT_COMMIT} fixed it"),
    ("anthropic-key", "the sk-ant- prefix marks Anthropic keys"),
    ("openai-key", "we use sk-learn-compatible-estimators-everywhere in this task-based-flow"),
    ("slack-token", "xoxo-gossip-girl-fans-unite and xoxb-"),
    ("google-api-key", "AIza alone, or AIzaShort"),
    ("stripe-key", "set STRIPE_KEY to a key starting sk_live_ alone, never commit it"),
    ("stripe-key", "task_list_items and mask_live_preview_settings_enabled are fields"),
    ("stripe-key", "Stripe secret keys (sk_test_ or sk_live_) and restricted keys (rk_…)"),
    ("stripe-key", "sk_live_abc123 is too short, and sk_prod_" + fake(ALNUM, 24, 29)),
    ("stripe-key", "pk_live_" + fake(ALNUM, 24, 30) + " is the publishable one: public"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9 is only a header"),
    ("jwt", PNG_PREFIX),
    ("bearer-token", 'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api'),
    ("bearer-token", "send an Authorization: Bearer header with <token>"),
    ("url-credentials", "clone https://github.com/example-org/repo and http://localhost:8080/a"),
    ("url-credentials", "git@github.com:example-org/repo.git and https://user@host/x"),
    ("url-credentials", "postgres://app:${DB_PASSWORD}@db/app and https://u:***@h/"),
    ("entropy-assignment", f"request_id = {UUID}"),
    ("entropy-assignment", f"cache_key = {SHA256_OF_EMPTY}"),
    ("entropy-assignment", "tokenizer = AutoTokenizer.from_pretrained('bert-base-uncased')"),
    ("entropy-assignment", "max_tokens=4096, the tokenizer splits words into tokens"),
    ("entropy-assignment", "primary_key = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
    ("entropy-assignment", SSH_PUBLIC),
    ("entropy-assignment", SSH_PUBLIC_RSA),
    ("entropy-assignment", "Plain prose: we refactored the parser and the tests pass."),
    ("entropy-assignment", "the key insight is that the token budget is the limit"),
    ("entropy-assignment", f"export REQUEST_TOKEN {UUID}"),
    ("entropy-assignment", f"CACHE_KEY {SHA256_OF_EMPTY} and signing_key {GIT_COMMIT}"),
    ("entropy-assignment", "kubectl create secret generic app-secret --from-literal=debug=1"),
    ("entropy-assignment", f"SIGNING_KEY\n{ENTROPY_SHORT} is on the next line, not assigned"),
    ("entropy-assignment", "-----BEGIN PUBLIC KEY----- " + fake(B64, 64, 91)),
    ("aws-secret-key", f"SecretAccessKey {GIT_COMMIT}"),
    ("aws-secret-key", "AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY aws s3 ls"),
    ("aws-secret-key", '{"SecretAccessKey": "${SECRET_ACCESS_KEY}"}'),
    ("aws-secret-key", "set aws_secret_access_key in ~/.aws/credentials, not here"),
    ("aws-secret-key", f"aws_secret_access_key: {UUID}"),
    ("aws-secret-key", "aws_secret_access_key = " + "x" * 40),
    ("password", "pg_dump --password-file /run/secrets/db_password app"),
    ("password", "password: <placeholder>"),
    ("password", "PGPASSWORD=$PGPASSWORD psql and password=${DB_PASSWORD} and pwd=%PW%"),
    ("password", "password: ***"),
    ("password", "password=xxxxxxxx"),
    ("password", 'password: "" and passwd= and password: {{ vault_db }}'),
    ("password", "PGPASSWORD= psql -h db app"),
    ("registry-auth", '{"auth": "basic", "auths": {}} and oauth: none and auth=required'),
    ("registry-auth", f'"auth": "{base64.b64encode(b"no-colon-in-this-value").decode()}"'),
    ("registry-auth", '"identitytoken": "" and "registrytoken": "$REGISTRY_TOKEN"'),
    ("registry-auth", "eyJhbGciOiJIUzI1NiJ9 and ewogICJuYW1lIjogImFwcCIKfQ=="),
    (
        "discord-token",
        "M" + fake(ALNUM, 23, 103) + "." + fake(ALNUM, 6, 104) + "." + fake(ALNUM, 27, 105),
    ),
    ("discord-token", f"see https://discord.com/api/webhooks/ and channel {DISCORD_ID}"),
    ("twilio-key", f"call CA{fake(HEX, 32, 106)} and message SM{fake(HEX, 32, 107)}"),
    ("twilio-key", f"sha1 AC{fake(HEX.upper(), 38, 108)} and SK{fake(HEX, 31, 109)}"),
    ("bearer-token", "the Authorization: token required, Authorization: Bot <token>"),
    ("secret-assignment", "SECRET_KEY_FILE=/run/secrets/django SORT_KEY=created_at"),
    ("secret-assignment", 'api_key = os.getenv("API_KEY"); token = request.headers["X-Token"]'),
    ("secret-assignment", "MAX_TOKEN=4096 TOKEN_TTL=3600 KEY_ID=abc123 CACHE_KEY=v2-deps"),
    ("secret-assignment", '{"key": "value!", "token_type": "Bearer", "apiKey": "string"}'),
    ("secret-assignment", "    api_key: str\n    token: Optional[str] = None\n"),
    ("secret-assignment", "SECRET_KEY=$SECRET_KEY API_TOKEN=${{ secrets.API_TOKEN }}"),
    ("secret-assignment", "client(api_key=api_key, token=self.token, secret=cfg.secret)"),
    ("secret-assignment", "GOOGLE_APPLICATION_CREDENTIALS=/path/to/sa.json"),
    ("secret-assignment", f"aws_secret_access_key: {UUID} and api_token: v2_legacy"),
    ("secret-assignment", 'SECRET_KEY = env("SECRET_KEY") and TOKEN_URL=https://auth/token'),
    ("password", "PWD=/home/dev/app OLDPWD=/home/dev"),
    ("password", "POSTGRES_PASSWORD_FILE=/run/secrets/pg password_min_length=12"),
    ("password", "ssh -o PasswordAuthentication=no -o PasswordPolicy:strict host"),
    ("password", "def connect(password: str | None = None) -> None:"),
    ("password", "if password == expected: login(password=None)"),
    ("password", f"the password reset id is {UUID}, commit {GIT_COMMIT}"),
    ("password", "Enter your password when prompted; it is never stored."),
    ("password", "mysql --password --host db and --passwd=$MYSQL_PWD"),
    ("password", "bypass=1 compass: north PASS_RATE=0.9"),
    ("password", "grep: /etc/passwd: Permission denied"),
    ("password", "connect(user=user, password=password) and self.password = cfg.db_password"),
    ("password", 'password=os.getenv("DB_PASSWORD") or os.environ["PGPASSWORD"]'),
    ("password", "const password = process.env.PGPASSWORD;"),
    ("cli-password", "mysql -u root -p"),
    ("cli-password", "docker run -p 8080:80 nginx && docker login -u me --password-stdin"),
    ("cli-password", "mysql -u root -p app_db < dump.sql"),
    ("cli-password", "mysql -h db -P3306 -uroot -p$MYSQL_PWD"),
    ("cli-password", "mysql -uroot -p*** app"),
    ("cli-password", "ssh -p 2222 host; python -m pytest -pno:cacheprovider"),
    ("cli-password", "curl -u admin https://api.internal/v1"),
    ("cli-password", 'curl -u "$API_USER:$API_PASS" https://api.internal/v1'),
    ("cli-password", "curl -u admin:<password> https://api.internal/v1"),
    ("cli-password", "curl --user-agent 'Agent: x' -H 'Accept: a/b' https://api.internal"),
    ("cli-password", "wget -U agent:x https://files.internal/a.tgz"),
]


def test_rule_ids_are_the_twenty_six_documented_ones_in_priority_order() -> None:
    assert RULE_IDS == (
        "private-key",
        "aws-access-key",
        "aws-secret-key",
        "github-token",
        "anthropic-key",
        "openai-key",
        "slack-token",
        "google-api-key",
        "stripe-key",
        "sendgrid-key",
        "slack-webhook",
        "service-token",
        "registry-auth",
        "discord-token",
        "twilio-key",
        "jwt",
        "bearer-token",
        "url-credentials",
        "entropy-assignment",
        "password",
        "secret-assignment",
        "password-prose",
        "netrc-password",
        "cli-password",
        "secret-prose",
        "cli-secret",
    )


def test_every_rule_has_a_positive_and_a_near_miss() -> None:
    assert {rule for rule, _, _ in POSITIVES} == set(RULE_IDS)
    assert {rule for rule, _ in NEAR_MISSES} == set(RULE_IDS)


@pytest.mark.parametrize(("rule", "text", "span"), POSITIVES)
def test_a_secret_is_replaced_by_its_rule_and_the_sha256_of_its_span(
    rule: str, text: str, span: str
) -> None:
    digest = hashlib.sha256(span.encode("utf-8")).hexdigest()[:8]
    result = gate(text)
    assert result.text == text.replace(span, f"[REDACTED:{rule}:{digest}]")
    assert result.redactions == (Redaction(rule=rule, digest=digest),)
    assert result.dropped_reason is None
    assert span not in (result.text or "")


@pytest.mark.parametrize(("rule", "text"), NEAR_MISSES)
def test_a_near_miss_passes_unchanged(rule: str, text: str) -> None:
    assert gate(text) == GatedText(text=text), f"{rule} fired on a near miss"


def test_only_the_value_is_replaced_so_names_users_and_hosts_stay_readable() -> None:
    text = f"DB_PASSWORD={ENTROPY_VALUE} psql postgres://app:{URL_PASSWORD}@db.internal/app"
    result = gate(text).text or ""
    assert result.startswith("DB_PASSWORD=[REDACTED:entropy-assignment:")
    assert "postgres://app:[REDACTED:url-credentials:" in result
    assert result.endswith("]@db.internal/app")


def test_a_specific_rule_names_a_span_a_generic_rule_also_finds() -> None:
    text = f"https://x-access-token:{GITHUB_PAT}@github.com/o/r.git"
    assert gate(text).redactions == (Redaction("github-token", sha8(GITHUB_PAT)),)


def test_overlapping_spans_merge_so_no_tail_of_a_secret_survives() -> None:
    # the assignment's value starts with a JWT and runs on past it: one merged span
    value = JWT.replace(".", "") + fake(B64, 10, 70)
    text = f"session_token={value}"
    result = gate(text)
    assert result.text == f"session_token={marker('entropy-assignment', value)}"


def test_two_mentions_of_one_secret_get_the_same_marker() -> None:
    text = f"first {AWS_KEY} then again {AWS_KEY}, and {AWS_TEMP_KEY}"
    result = gate(text)
    assert result.text is not None
    assert result.text.count(marker("aws-access-key", AWS_KEY)) == 2
    assert [r.digest for r in result.redactions] == [
        sha8(AWS_KEY),
        sha8(AWS_KEY),
        sha8(AWS_TEMP_KEY),
    ]


def test_marker_is_rule_and_first_8_hex_of_the_sha256() -> None:
    assert marker("jwt", "abc") == f"[REDACTED:jwt:{hashlib.sha256(b'abc').hexdigest()[:8]}]"


DOTENV = (
    "# local settings\n"
    "DEBUG=true\n"
    f"OPENAI_API_KEY={OPENAI_PROJECT}\n"
    "DATABASE_PASSWORD=hunter2\n"
    "export SESSION_SECRET=changeme\n"
)
AWS_CREDENTIALS = (
    f"[default]\naws_access_key_id = {AWS_KEY}\naws_secret_access_key = {ENTROPY_VALUE}\n"
)
STRIPE_LIVE = "sk_live_" + fake(ALNUM, 24, 90)
DOTENV_ONE_SECRET_NAME = (
    f"DATABASE_URL=postgres://app:{URL_PASSWORD}@db/app\nSTRIPE_KEY={STRIPE_LIVE}\n"
)
DOTENV_ONE_SECRET_NAME += f"SLACK={SLACK_BOT}\nDEBUG=1\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (DOTENV, "a .env dump"),
        ("API_TOKEN=abc\nDB_PASSWORD=short\n", "a .env dump"),
        (DOTENV_ONE_SECRET_NAME, "a .env dump"),
        ("DEBUG=true\nPORT=8080\nAPI_KEY=abc123\n", "a .env dump"),
        (f"$ cat .env\nexport STRIPE_KEY={STRIPE_LIVE}\nDEBUG=1\nPORT=8080\n", "a .env dump"),
        # no secret-ish name, but values the rules catch
        (f"DEBUG=1\nPORT=8080\nDATABASE_URL=postgres://app:{URL_PASSWORD}@db/app\n", "a .env dump"),
        (f"LOG_LEVEL=info\nPORT=8080\nSLACK={SLACK_BOT}\n", "a .env dump"),
        (f"\n{RSA_KEY}\n", "a private key file"),
        (OPENSSH_KEY, "a private key file"),
        (AWS_CREDENTIALS, "an AWS credentials file"),
        (RSA_KEY.rsplit("-----END", 1)[0], "an incomplete private key block"),
        ("truncated output…\n" + RSA_KEY.split("\n", 2)[2], "an incomplete private key block"),
    ],
)
def test_credential_file_contents_are_dropped_whole(text: str, reason: str) -> None:
    result = gate(text)
    assert result == GatedText(text=None, dropped_reason=reason)
    assert result.dropped


@pytest.mark.parametrize(
    "text",
    [
        "DEBUG=1\nAPI_KEY=x\n",  # two lines, one secret-ish: not a dump
        "DEBUG=1\nPORT=8080\n",  # plain config
        "DEBUG=1\nPORT=8080\nLOG_LEVEL=info\nWORKERS=4\n",  # plain config, more lines
        'api_key = os.environ["API_KEY"]\nsecret = load_secret()\ntoken = refresh(token)\n',
        "export API_KEY=$API_KEY\nexport REGION=eu\nexport STAGE=dev\n",  # a reference
        "TOKENIZERS_PARALLELISM=false\nOMP_NUM_THREADS=4\nHF_HUB_OFFLINE=1\n",  # a flag
        "export API_KEY=$API_KEY\nexport GH_TOKEN=${GH_TOKEN}\n",  # references, not values
        "[tool.ruff]\nline-length = 100\n",  # a section but no AWS secret line
        "aws_secret_access_key is the name of the second line of ~/.aws/credentials",
        pem("PUBLIC KEY", 80),
    ],
)
def test_near_misses_of_credential_files_are_not_dropped(text: str) -> None:
    assert gate(text).text is not None


@pytest.mark.parametrize(
    "text", [text for _, text, _ in POSITIVES] + [f"OPENAI_API_KEY={OPENAI_PROJECT}\nDEBUG=1\n"]
)
def test_gating_gated_text_changes_nothing(text: str) -> None:
    once = gate(text)
    assert once.text is not None
    twice = gate(once.text)
    assert twice == GatedText(text=once.text)


def test_a_token_given_as_a_curl_user_is_gated_once_and_stays_so() -> None:
    # curl -u KEY: (an empty password) is how Stripe's and GitHub's docs pass a key; the
    # marker left in its place must not read as user "[REDACTED" and a password.
    for token, rule in ((STRIPE_TEST, "stripe-key"), (GITHUB_PAT, "github-token")):
        text = f"curl https://api.internal/v1 -u {token}: -d amount=100"
        gated = gate(text).text
        assert gated == text.replace(token, marker(rule, token))
        assert gate(gated) == GatedText(text=gated)


def test_text_inside_an_existing_marker_is_never_redacted_again() -> None:
    text = f"postgres://app:{marker('url-credentials', 'x')}@db/app"
    assert gate(text) == GatedText(text=text)


@pytest.mark.parametrize(
    ("value", "bits"),
    [("", 0.0), ("aaaa", 0.0), ("ab", 1.0), ("abcd", 2.0), ("aabb", 1.0)],
)
def test_shannon_entropy_is_bits_per_character(value: str, bits: float) -> None:
    assert shannon_entropy(value) == pytest.approx(bits)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (ENTROPY_VALUE, True),
        (ENTROPY_VALUE[:23], False),  # too short
        (UUID, False),
        (GIT_COMMIT, False),  # pure hex
        (SHA256_OF_EMPTY, False),
        ("abcabcabcabcabcabcabcabcabcabc", False),  # low entropy
        (ENTROPY_VALUE + "!", False),  # outside the alphabet
    ],
)
def test_high_entropy_means_long_varied_and_neither_uuid_nor_hex(
    value: str, expected: bool
) -> None:
    assert is_high_entropy(value) is expected


# --- hostile text: leads that never reach a clause's end ------------------------------

HOSTILE_SIZE = 100_000
HOSTILE = {
    "password is, repeated": "password is " * (HOSTILE_SIZE // 12),
    "password:, repeated": "password: " * (HOSTILE_SIZE // 10),
    "my password is, repeated": "my password is " * (HOSTILE_SIZE // 15),
    "the api key is, repeated": "the api key is " * (HOSTILE_SIZE // 15),
    "the token, it is, repeated": "token, it is " * (HOSTILE_SIZE // 13),
    "a passphrase that never ends": "password is " + "abcd efgh " * (HOSTILE_SIZE // 10),
    "one word without end": "password is " + "a" * HOSTILE_SIZE,
    "blanks after the verb": "password is" + " " * HOSTILE_SIZE + "x",
    "set NAME to, repeated": "set SECRET_KEY to " * (HOSTILE_SIZE // 18),
    "flags without values": "--token " * (HOSTILE_SIZE // 8),
    "redis-cli and its flag": "redis-cli " + "-a " * (HOSTILE_SIZE // 3),
    "an unclosed quote": "the secret is '" + "a" * HOSTILE_SIZE,
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_text_is_gated_without_runaway_backtracking_and_stays_gated(text: str) -> None:
    # well under a second on a shared 2-core machine; backtracking over every lead would
    # take minutes
    started = time.perf_counter()
    result = gate(text)
    assert time.perf_counter() - started < 5.0
    assert gate(result.text or "") == GatedText(text=result.text or "")


# --- property: random prose with secrets inserted between words ------------------------


def _body(alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=size, max_size=size)


def _entropy_value() -> st.SearchStrategy[str]:
    return st.text(alphabet=B64, min_size=28, max_size=48).filter(is_high_entropy)


def _password() -> st.SearchStrategy[str]:
    """A short password; its "#" keeps it apart from the prose words around it."""
    return st.builds(
        lambda head, tail: f"{head}#{tail}",
        st.text(alphabet=ALNUM, min_size=3, max_size=8),
        st.text(alphabet=ALNUM + "!@#^*", min_size=3, max_size=8),
    )


# each strategy gives (text to insert, the secret that must not survive)
SECRET_CONTEXTS: list[st.SearchStrategy[tuple[str, str]]] = [
    st.builds(
        lambda prefix, body: (prefix + body, prefix + body),
        st.sampled_from(["AKIA", "ASIA"]),
        _body(UPPER_ALNUM, 16),
    ),
    st.builds(
        lambda prefix, body: (prefix + body, prefix + body),
        st.sampled_from(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]),
        _body(ALNUM, 36),
    ),
    _body(ALNUM + "_", 82).map(lambda body: ("github_pat_" + body, "github_pat_" + body)),
    _body(URLSAFE, 93).map(lambda body: ("sk-ant-api03-" + body, "sk-ant-api03-" + body)),
    st.builds(
        lambda a, b: (f"sk-proj-{a}T3BlbkFJ{b}", f"sk-proj-{a}T3BlbkFJ{b}"),
        _body(URLSAFE, 20),
        _body(URLSAFE, 20),
    ),
    st.builds(
        lambda kind, a, b: (f"xox{kind}-{a}-{b}", f"xox{kind}-{a}-{b}"),
        st.sampled_from("bpas"),
        _body(string.digits, 12),
        _body(ALNUM, 24),
    ),
    _body(URLSAFE, 35).map(lambda body: ("AIza" + body, "AIza" + body)),
    st.builds(
        lambda prefix, body: (prefix + body, prefix + body),
        st.sampled_from(["sk_live_", "sk_test_", "rk_live_", "rk_test_"]),
        st.integers(16, 99).flatmap(lambda size: _body(ALNUM, size)),
    ),
    st.builds(
        lambda h, p, s: (f"eyJ{h}.eyJ{p}.{s}", f"eyJ{h}.eyJ{p}.{s}"),
        _body(URLSAFE, 12),
        _body(URLSAFE, 30),
        _body(URLSAFE, 43),
    ),
    _body(ALNUM, 32).map(lambda tok: (f"Authorization: Bearer {tok}", tok)),
    # a password of only "x" or "*" is a placeholder by the gate's rule, not a secret
    _body(ALNUM, 16)
    .filter(lambda pw: pw.strip("x") != "")
    .map(lambda pw: (f"postgres://svc:{pw}@db.example.com/app", pw)),
    st.builds(
        lambda form, v: (form.format(v), v),
        st.sampled_from(
            [
                "API_SECRET={}",
                "export SERVICE_TOKEN='{}'",
                '{{"client_secret": "{}"}}',
                "db_password: {}",
                "signing_key := {}",
                "--token {}",
                "--api-key={}",
                "-password {}",
                "export GITHUB_TOKEN  {}",
                "set client_secret {}",
            ]
        ),
        _entropy_value(),
    ),
    st.builds(
        lambda form, v: (form.format(v), v),
        st.sampled_from(
            [
                "AWS_SECRET_ACCESS_KEY {}",
                "aws configure set aws_secret_access_key {}",
                '"SecretAccessKey": "{}"',
                "secret_access_key={}",
            ]
        ),
        _body(B64, 40).filter(
            lambda v: shannon_entropy(v) > 3.0 and not all(c in string.hexdigits for c in v)
        ),
    ),
    st.builds(
        lambda form, pw: (form.format(pw), pw),
        st.sampled_from(
            [
                "--password={}",
                "PGPASSWORD={} psql",
                "db_passwd: {}",
                '"password": "{}"',
                "--pass {}",
                "mysql -uroot -p{}",
                "curl -u admin:{}",
                "curl --user admin:{}",
            ]
        ),
        _password(),
    ),
    # a Discord bot token: base64url of an 18-digit user id, a timestamp, an HMAC
    st.builds(
        lambda head, digits, ts, mac: (
            tok := base64.urlsafe_b64encode(f"{head}{digits}".encode()).decode().rstrip("=")
            + f".{ts}.{mac}",
            tok,
        ),
        st.sampled_from("123456789"),
        _body(string.digits, 17),
        _body(URLSAFE, 6),
        _body(URLSAFE, 27),
    ),
    st.builds(
        lambda prefix, body: (prefix + body, prefix + body),
        st.sampled_from(["SK", "AC"]),
        _body(HEX, 32),
    ),
    st.builds(
        lambda user, pw: (
            f'"auth": "{(b64 := base64.b64encode(f"{user}:{pw}".encode()).decode())}"',
            b64,
        ),
        st.text(alphabet=ALNUM, min_size=1, max_size=12),
        st.text(alphabet=ALNUM + "!@#", min_size=1, max_size=24),
    ),
    # a random secret with symbols (Django's alphabet), given to a secret's name; it
    # starts with a letter or digit (a leading "$NAME" reads as a shell variable)
    st.builds(
        lambda form, head, body: (form.format(head + body), head + body),
        st.sampled_from(
            [
                "SECRET_KEY={}",
                "export API_TOKEN='{}'",
                '{{"client_secret": "{}"}}',
                'DJANGO_SECRET_KEY = "{}"',
            ]
        ),
        st.sampled_from(ALNUM),
        st.text(alphabet=DJANGO_ALPHABET, min_size=12, max_size=50),
    ),
    # a complete private key block; its first base64 line must not survive
    st.integers(0, 1000).map(lambda seed: (pem("EC PRIVATE KEY", seed), fake(B64, 64, seed))),
]

WORDS = st.text(alphabet=string.ascii_letters + string.digits + ".,;!?'()", min_size=1, max_size=10)
SEPARATORS = st.sampled_from([" ", "\n", "\t", ", ", " (", '"', " ' "])


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(WORDS, max_size=30),
    inserts=st.lists(
        st.tuples(st.one_of(SECRET_CONTEXTS), st.integers(0, 30), SEPARATORS, SEPARATORS),
        min_size=1,
        max_size=4,
    ),
)
def test_gated_prose_never_contains_a_secret_inserted_between_its_words(
    words: list[str], inserts: list[tuple[tuple[str, str], int, str, str]]
) -> None:
    pieces = [f" {word}" for word in words]
    secrets: list[str] = []
    for (context, secret), position, before, after in inserts:
        pieces.insert(min(position, len(pieces)), f"{before}{context}{after}")
        secrets.append(secret)
    text = "".join(pieces)
    result = gate(text)
    if result.text is None:
        return  # dropped whole: nothing of it is shown
    for secret in secrets:
        assert secret not in result.text
    assert gate(result.text) == GatedText(text=result.text)
