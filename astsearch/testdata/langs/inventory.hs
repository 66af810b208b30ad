{-# LANGUAGE ScopedTypeVariables #-}
module Inventory
  ( Item (..)
  , restock
  , totalValue
  , lookupItem
  ) where

import qualified Data.Map.Strict as Map
import Data.Maybe (fromMaybe)
import Control.Monad (forM_, when)

-- | One line of the stock list.
data Item = Item
  { itemName  :: String
  , itemCount :: Int
  , itemPrice :: Double
  } deriving (Show, Eq)

type Stock = Map.Map String Item

restock :: Int -> Item -> Item
restock n item = item { itemCount = itemCount item + n }

totalValue :: Stock -> Double
totalValue stock = sum [fromIntegral (itemCount i) * itemPrice i | i <- Map.elems stock]

lookupItem :: String -> Stock -> Maybe Item
lookupItem name stock = Map.lookup name stock

countOf :: String -> Stock -> Int
countOf name stock = fromMaybe 0 (itemCount <$> lookupItem name stock)

classify :: Int -> String
classify n
  | n <= 0 = "empty"
  | n < 10 = "low"
  | otherwise = "ok"

describe :: Item -> String
describe item = case itemCount item of
  0 -> itemName item ++ ": none"
  1 -> itemName item ++ ": one"
  n -> itemName item ++ ": " ++ show n

report :: Stock -> IO ()
report stock = do
  forM_ (Map.elems stock) $ \item -> do
    let line = describe item
    putStrLn line
    when (itemCount item == 0) $ putStrLn "  (reorder)"
  print (totalValue stock)

main :: IO ()
main = do
  let stock = Map.fromList [("nail", Item "nail" 100 0.05), ("saw", Item "saw" 0 12.5)]
  report stock
  print (countOf "nail" stock)
  print (map (restock 5) (Map.elems stock))
