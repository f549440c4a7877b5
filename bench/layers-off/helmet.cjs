'use strict';
require('../layers-off.cjs')('helmet');
