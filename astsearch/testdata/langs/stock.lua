-- A small stock ledger.
local Stock = {}
Stock.__index = Stock

function Stock.new(owner)
  local self = setmetatable({}, Stock)
  self.owner = owner
  self.items = {}
  return self
end

function Stock:add(name, count, price)
  if self.items[name] ~= nil then
    error("exists: " .. name)
  end
  self.items[name] = { count = count, price = price }
end

function Stock:restock(name, n)
  local item = self.items[name]
  if item == nil then
    return nil, "unknown item"
  end
  item.count = item.count + n
  return item.count
end

function Stock:total()
  local sum = 0
  for name, item in pairs(self.items) do
    sum = sum + item.count * item.price
  end
  return sum
end

local function report(stock)
  io.write(string.format("total: %.2f\n", stock:total()))
  for i = 1, 3 do
    print(i, stock.owner)
  end
  local ok, err = pcall(function() stock:add("nail", 1, 1) end)
  if not ok then
    io.stderr:write(err, "\n")
  end
end

local s = Stock.new("ada")
s:add("nail", 100, 0.05)
s:restock("nail", 5)
report(s)
return Stock
