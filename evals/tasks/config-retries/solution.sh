cat > config/client.json <<'JSON'
{
  "baseUrl": "https://api.example.com",
  "timeoutMs": 5000,
  "retries": 3
}
JSON
