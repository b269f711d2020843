-- placeholder while the module is written
local reserve_artillery = {}
return reserve_artillery
