-- Test fixture: a Lua script plugin (P-4).
function start()
  register_tool("lua_greet", "Greet someone by name", {
    type = "object",
    properties = { name = { type = "string", description = "Who to greet" } },
    required = { "name" },
  }, function(args)
    return "hello, " .. args.name
  end)
  register_tool("lua_info", "Structured answer", json.object(), function(args)
    return { ok = true, count = 3, tags = json.array({ "a", "b" }) }
  end)
  register_tool("lua_fail", "Always fails", json.object(), function(args)
    error("lua tool failed on purpose")
  end)
  register_tool("lua_spin", "Loops forever", json.object(), function(args)
    while true do end
  end)
end
