defmodule Shop.Inventory do
  @moduledoc "A small stock keeper."

  defstruct items: %{}

  @type item :: %{name: String.t(), count: non_neg_integer(), price: float()}

  def new, do: %__MODULE__{}

  def add(%__MODULE__{items: items} = inv, %{name: name} = item) do
    items = Map.update(items, name, item, fn old -> %{old | count: old.count + item.count} end)
    %{inv | items: items}
  end

  def find(%__MODULE__{items: items}, name), do: Map.get(items, name)

  def total(%__MODULE__{items: items}) do
    items
    |> Map.values()
    |> Enum.map(fn it -> it.count * it.price end)
    |> Enum.sum()
  end

  def restock(%__MODULE__{items: items} = inv, min) when is_integer(min) do
    {low, items} =
      Enum.reduce(items, {[], items}, fn {name, it}, {low, acc} ->
        if it.count < min do
          {[name | low], Map.put(acc, name, %{it | count: max(min, it.count * 2)})}
        else
          {low, acc}
        end
      end)

    {Enum.reverse(low), %{inv | items: items}}
  end
end

case Shop.Inventory.find(Shop.Inventory.new(), "apple") do
  nil -> IO.puts("missing")
  item -> IO.inspect(item)
end
