#pragma once
// The one place the broker names its Asio flavour: Boost.Asio with C++20
// coroutines (awaitable, co_spawn, use_awaitable).

#include <boost/asio.hpp>

namespace hw::broker {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
}  // namespace hw::broker
