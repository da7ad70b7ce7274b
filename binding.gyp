{
  "targets": [
    {
      "target_name": "os_yield",
      "sources": ["native/os-yield.c"]
    }
  ]
}
